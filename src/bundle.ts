/**
 * The script-tag entry (`dist/bioid-elements.js`): defines every tag and exposes `window.BioIDSDK`.
 * A second copy of the script on the same page keeps the first copy's globals (and the first
 * definitions of the tags; see elements/define.ts).
 */
import {
  BioIDError,
  ReaderAuthError,
  brokerTokenSource,
  clearBrokerTokens,
  createFingerprintReader,
  version,
  watchReaderStatus,
} from './index.js';
import { BioIDCore } from './core/bioid-core.js';
import { configureElements } from './elements/parts/settings.js';
import type { BioIDSDKGlobal } from './elements/parts/globals.js';

// The loader of the files next to the script (script-parts.ts); the build links it to each `import()`.
export { loadRarePart } from './script-parts.js';
// The tags last, after every other module has run: defining a tag upgrades the elements already in the page
// (the script with defer or async, or at the end of <body>) there and then, and such an element may load its
// part at once, through the loader above, whose state must exist by then (test/elements/placement.browser.test.ts).
import './elements/tags.js';

const sdk: BioIDSDKGlobal = {
  version,
  // Without confirmVerification: a confirmation in a browser proves nothing (core/bioid-core.ts).
  BioID: BioIDCore,
  createFingerprintReader,
  BioIDError,
  ReaderAuthError,
  brokerTokenSource,
  watchReaderStatus,
  configureElements,
  clearBrokerTokens,
};
// An own property only: markup with `id="BioIDSDK"` makes window.BioIDSDK an element, which must not
// stand in for the SDK (a page's sign-out would then clear no token). A second copy keeps the first.
if (!Object.hasOwn(globalThis, 'BioIDSDK')) (globalThis as { BioIDSDK?: BioIDSDKGlobal }).BioIDSDK = Object.freeze(sdk);
