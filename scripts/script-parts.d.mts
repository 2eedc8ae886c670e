import type { Plugin } from 'rollup';
/** The files the script loads on use, beside it in `distDir` (bioid-<part>.js). */
export declare function scriptPartFiles(distDir: string): string[];
/** The rollup plugin that makes the script-tag bundle a classic script and the files it loads on use. */
export declare function scriptParts(): Plugin;
