// Placeholder until the kiosk service worker lands (issue 5).
export {};
