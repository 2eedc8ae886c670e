/**
 * The script-tag entry (`dist/bioid-elements.js`): defines the elements and exposes `window.BioIDSDK`.
 * A second copy of the script on the same page keeps the first copy's globals.
 */
import { BioID, BioIDError, ReaderAuthError, createFingerprintReader, version } from './index.js';
import './elements/index.js';

const sdk = { version, BioID, createFingerprintReader, BioIDError, ReaderAuthError };
const host = globalThis as { BioIDSDK?: typeof sdk };
host.BioIDSDK ??= Object.freeze(sdk);
