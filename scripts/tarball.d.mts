export interface PackageDir {
  name: string;
  /** Its folder in this repository, '' for bioid-sdk. */
  dir: string;
  /** Packed without its prepack (bioid-sdk, from the dist/ of `npm run build`). */
  ignoreScripts: boolean;
}
export interface TarballFile {
  /** Its path in the package, without npm's leading `package/`. */
  path: string;
  size: number;
  mode: number;
  contents: Buffer;
}
export interface TarballContents {
  /** The .tgz's size in bytes: npm's "package size". */
  packed: number;
  /** The files' sizes summed: npm's "unpacked size". */
  unpacked: number;
  /** Sorted by path. */
  files: TarballFile[];
}
export interface PackedPackage extends PackageDir, TarballContents {
  /** Absolute path of the .tgz. */
  tarball: string;
}
export declare const PACKAGES: PackageDir[];
/** Bytes as npm prints them (1 kB = 1000 B, one decimal). */
export declare function formatBytes(bytes: number): string;
/** The files of a .tgz, read from the file itself. */
export declare function readTarball(tarball: string): TarballContents;
/** The package at `from` copied to `to` (with `onlyFiles`, only what its package.json publishes). */
export declare function copyPackage(from: string, to: string, onlyFiles: boolean): void;
/** The repository's node_modules linked into `work`, above the copied packages, for their builds. */
export declare function linkTools(work: string): void;
/** Packs the three packages from a copy of the tree made in `work` (an empty folder); `prepare` changes the copy first. */
export declare function packPackages(work: string, options?: { prepare?: (tree: string) => unknown }): Promise<PackedPackage[]>;
/** `npm pack` in `dir` (with its prepack unless `ignoreScripts`), the tarball written to `into`: its path. */
export declare function pack(dir: string, into: string, options?: { ignoreScripts?: boolean }): Promise<string>;
