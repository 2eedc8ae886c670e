export const API_DIR: string;
export const ENTRIES: Record<string, string>;
export interface TagSummary {
  class: string;
  attributes: Record<string, string>;
  properties: Record<string, string>;
  methods: string[];
  events: Record<string, string>;
  cssParts: string[];
  cssProperties: string[];
}
export type ElementsSummary = Record<string, TagSummary>;
export function apiReport(name: string): string;
export function elementsSummary(manifestPath?: string): ElementsSummary;
export function compareElements(committed: ElementsSummary, built: ElementsSummary): { breaking: string[]; additions: string[] };
export function elementsJson(summary: ElementsSummary): string;
export function extract(name: string): { report: string; model: unknown };
