/** A setting as src/elements/parts/settings.ts declares it: the manifest plugin's reading of the file. */
export interface SettingDeclaration {
  name: string;
  /** Its type as a property of an element (`string | undefined`). */
  type: string;
  doc: string;
  defaultValue: string | undefined;
  /** The kebab-case attribute; undefined for a property only. */
  attribute: string | undefined;
}
/** Each setting of src/elements/parts/settings.ts, in order. */
export declare function readSettings(file?: string): SettingDeclaration[];
