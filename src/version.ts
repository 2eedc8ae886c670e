/** The SDK version; a test keeps it equal to package.json. */
export const version = '0.1.0';
