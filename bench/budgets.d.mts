export declare const BUNDLE_BUDGET: number;
export declare const CORE_BUDGET: number;
export declare const BUNDLE_ALL_BUDGET: number;
export declare const TARBALL_BUDGET: number;
