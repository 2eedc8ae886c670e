/** Every tag in a custom-elements manifest with its attribute names. */
export declare function elementTags(manifest: unknown): Record<string, string[]>;
/** The plugin's files as [path in the zip, contents], the bundle, the files it loads on use and elements.json included. */
export declare function pluginFiles(root?: string): { version: string; files: Array<[string, Buffer]> };
/** A zip of `files` ([name, contents]). */
export declare function zip(files: Array<[string, Buffer]>): Buffer;
/** Writes the plugin zip to `out` (default wordpress/dist/bioid-<version>.zip); returns its path. */
export declare function packWordPress(options?: { out?: string; root?: string }): string;
