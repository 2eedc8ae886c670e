export declare const BUNDLE_BUDGET: number;
export declare const CORE_BUDGET: number;
export declare const BUNDLE_ALL_BUDGET: number;
export declare const TARBALL_BUDGET: number;
export declare const STARTUP_BUDGET: number;
/** `code` with its build id replaced by one fixed id of the same length (sizes held against a ceiling). */
export declare const withFixedBuildId: (code: string | Buffer) => string;
