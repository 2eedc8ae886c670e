// Placeholder until the elements land (issue 4): importing it defines nothing yet.
export {};
