/**
 * The script-tag entry (`dist/bioid-elements.js`): defines the elements and exposes `window.BioIDSDK`.
 * A second copy of the script on the same page keeps the first copy's globals (and the first
 * definitions of the tags; see elements/define.ts). `<bio-enrolled>` is left out to stay in the size
 * budget; it comes with `bioid-sdk/elements`.
 */
import { BioID, BioIDError, ReaderAuthError, createFingerprintReader, version } from './index.js';
import './elements/tags.js';
import { clearBrokerTokens } from './elements/broker-client.js';
import { configureElements } from './elements/page-config.js';

const sdk = { version, BioID, createFingerprintReader, BioIDError, ReaderAuthError, configureElements, clearBrokerTokens };
const host = globalThis as { BioIDSDK?: typeof sdk };
host.BioIDSDK ??= Object.freeze(sdk);
