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
import './elements/tags.js';
import { configureElements } from './elements/settings.js';
import type { BioIDSDKGlobal } from './elements/globals.js';

// The loader of the files next to the script (script-parts.ts); the build links it to each `import()`.
export { loadRarePart } from './script-parts.js';

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
