export type Engine = 'chromium' | 'firefox' | 'webkit';
export declare const ENGINES: Engine[];
export declare const ENGINE_NAMES: Record<Engine, string>;
export declare function selectedEngines(env?: Record<string, string | undefined>): Engine[];

export interface ConsoleMessage {
  type: string;
  text: string;
}
export interface Cookie {
  name: string;
  value: string;
  httpOnly: boolean;
  sameSite: string;
}
type PageFunction<A, R> = ((arg: A) => R | Promise<R>) | string;
export interface Page {
  /** Console messages and uncaught errors (Chromium and Firefox; WebDriver classic has none for WebKit). */
  consoleMessages: ConsoleMessage[];
  timeout: number;
  goto(url: string): Promise<void>;
  reload(): Promise<void>;
  url(): Promise<string>;
  evaluate<R, A = undefined>(fn: PageFunction<A, R>, arg?: A): Promise<R>;
  waitForFunction<R, A = undefined>(fn: PageFunction<A, R>, arg?: A, options?: { timeout?: number }): Promise<R>;
  waitForSelector(selector: string, options?: { timeout?: number }): Promise<void>;
  waitForText(selector: string, pattern: RegExp | string, options?: { timeout?: number }): Promise<string>;
  text(selector: string): Promise<string>;
  attribute(selector: string, name: string): Promise<string | null>;
  count(selector: string): Promise<number>;
  fill(selector: string, value: string): Promise<void>;
  select(selector: string, value: string): Promise<void>;
  setChecked(selector: string, checked: boolean): Promise<void>;
  click(selector: string): Promise<void>;
  clickAndWaitForLoad(selector: string): Promise<void>;
  /** The same API inside the iframe `selector` of this page (its document as it is when each call runs). */
  frame(selector: string): Promise<Page>;
  close(): Promise<void>;
}
export interface Context {
  newPage(): Promise<Page>;
  cookies(url: string): Promise<Cookie[]>;
  /** Chromium only: a permission of this context set as the user would (CDP Browser.setPermission). */
  setPermission?(options: {
    permission: { name: string };
    setting: 'granted' | 'denied' | 'prompt';
    origin?: string;
    embeddedOrigin?: string;
  }): Promise<void>;
  close(): Promise<void>;
}
export interface Browser {
  engine: Engine;
  name: string;
  /** Chromium and Firefox: the puppeteer-core browser itself (screenshots, media emulation). */
  puppeteer?: import('puppeteer-core').Browser;
  version(): Promise<string> | string;
  newContext(): Promise<Context>;
  close(): Promise<void>;
}
export declare function launch(engine: Engine, options?: { firefoxPrefs?: Record<string, unknown> }): Promise<Browser>;
