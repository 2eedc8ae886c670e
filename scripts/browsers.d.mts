export interface Requirement {
  id: string;
  name: string;
  env: string;
  commands?: string[];
  globs?: string[];
  files?: string[];
  debian: string;
  why: string;
  needed?: (inputs: Inputs) => boolean;
}
export interface Inputs {
  env: Record<string, string | undefined>;
  uid: number;
  osRelease: string;
  isExecutable(path: string): boolean;
  listDir(dir: string): string[];
  canSudo(sudoPath: string): boolean;
  run(command: string, args: string[], env: Record<string, string>): number;
  log(line: string): void;
  exists?(path: string): boolean;
}
export type Missing = Requirement & { badEnv?: string };
export declare const REQUIREMENTS: Requirement[];
export declare const CHROMIUM_ARGS: string[];
export declare const FIREFOX_PREFS: Record<string, string | number | boolean>;
export declare function systemInputs(): Inputs;
export declare function locate(requirement: Requirement, inputs?: Inputs): { path?: string; from?: string; badEnv?: string };
export declare function survey(inputs?: Inputs, requirements?: Requirement[]): { found: Record<string, string>; missing: Missing[] };
export declare function plan(
  missing: Missing[],
  inputs?: Inputs,
): { action: 'none' } | { action: 'install'; packages: string[]; sudo?: string; missing: Missing[] } | { action: 'stop'; message: string };
export declare function stopMessage(missing: Missing[], packages: string[], inputs: Inputs): string;
export declare function install(packages: string[], missing: Missing[], sudo: string | undefined, inputs?: Inputs): number;
export declare function ensure(inputs?: Inputs, requirements?: Requirement[]): Record<string, string>;
export declare class MissingError extends Error {}
export declare function browserPaths(): Record<string, string>;
export declare function chromiumLaunch(found?: Record<string, string>): { executablePath: string; headless: true | 'shell' };
export declare const firefoxPath: () => string;
export declare const webkitDriverPath: () => string;
export declare const miniBrowserPath: () => string;
export declare const xvfbPath: () => string | undefined;
export declare const phpPath: () => string;
export declare const redisServerPath: () => string;
