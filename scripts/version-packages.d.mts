/** A release as `changeset status --output` proposes it. */
export interface ProposedRelease {
  name: string;
  type: 'major' | 'minor' | 'patch' | 'none';
  oldVersion: string;
  newVersion: string;
  /** The changesets that name this package (empty for a bump that only follows a dependency). */
  changesets: string[];
}
/** A release written as another version than the one `changeset version` writes. */
export interface Correction {
  name: string;
  from: string;
  to: string;
}
/** What `changeset status` proposes in the repository at `root` (a git repository). */
export declare function proposedReleases(root: string): ProposedRelease[];
/** The majors from 0.x that no changeset of the package asked for, each as the next minor. */
export declare function unaskedMajors(releases: ProposedRelease[]): Correction[];
/** Writes `release.to` where `changeset version` wrote `release.from` (package.json, CHANGELOG.md heading). */
export declare function writeAsMinor(root: string, release: Correction): void;
/** `changeset version` with the corrections, then the lockfile unless `lockfile` is false. */
export declare function versionPackages(
  root: string,
  options?: { lockfile?: boolean; log?: (line: string) => void; stdio?: 'inherit' | 'ignore' },
): Correction[];
/** The paths of the changesets not yet applied (.changeset/*.md but its README). */
export declare function pendingChangesets(): string[];
/** The copy of this repository at `tree` with the pending changesets applied; its packages' versions, or undefined when none is pending. */
export declare function applyPendingChangesets(tree: string): Record<string, string> | undefined;
