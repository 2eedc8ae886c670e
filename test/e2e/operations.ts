/** Running one operation of an element in a page of any engine (test/support/engines.ts), for the e2e and security tests. */
import type { Page } from '../support/engines.js';

export interface Outcome {
  type: 'bio-result' | 'bio-error';
  detail: Record<string, unknown> & {
    result?: Record<string, unknown>;
    code?: string;
    message?: string;
    status?: number;
    workstationId?: string;
    deviceId?: string;
  };
}

/** Clicks the button (or the button `part`) of the element matched by `selector` and resolves with its bio-result or bio-error. */
export async function runOperation(page: Page, selector: string, part = 'button'): Promise<Outcome> {
  // The listener stores the outcome on window; no named inner functions (tsx would wrap them in __name()).
  await page.evaluate((sel: string) => {
    const w = window as unknown as { __bioidOutcome: unknown };
    w.__bioidOutcome = null;
    const el = document.querySelector(sel)!;
    for (const type of ['bio-result', 'bio-error']) {
      el.addEventListener(
        type,
        (event) => {
          w.__bioidOutcome = w.__bioidOutcome ?? { type, detail: JSON.parse(JSON.stringify((event as CustomEvent).detail)) };
        },
        { once: true },
      );
    }
  }, selector);
  await page.click(`${selector} >>> button[part~="${part}"]`);
  return (await page.waitForFunction(() => (window as unknown as { __bioidOutcome: Outcome | null }).__bioidOutcome)) as Outcome;
}
