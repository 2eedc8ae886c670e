import type { MinifyOptions } from 'terser';
/** The terser options of the build, the size test and the bench. */
export declare const TERSER_OPTIONS: MinifyOptions;
