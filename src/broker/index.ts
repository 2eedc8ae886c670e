// Placeholder until the reference token broker lands (issue 3).
export {};
