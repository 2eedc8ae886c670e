export declare const REFERENCE_DIR: string;
export declare function elementsReference(manifestPath?: string): string;
export declare function apiReference(name: string, model?: unknown): string;
export declare function referenceFiles(): Record<string, string>;
export declare const GENERATED_PAGES: string[];
export declare function withGeneratedParts(text: string, page?: string): string;
export declare function generatedPages(): Record<string, string>;
export declare function helpVariablesSource(): string;
export declare function generatedSources(): Record<string, string>;
