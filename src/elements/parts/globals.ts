/**
 * The two names a page sees on `window`, declared for TypeScript pages: the page defaults every element
 * reads, and what the script tag (`dist/bioid-elements.js`) exposes. Types only: nothing here runs.
 */
import type * as core from '../../index.js';
import type { BioIDCore } from '../../core/bioid-core.js';
import type { BioIDElementsConfig, configureElements } from './settings.js';

/** `window.BioIDSDK`, set by the script tag; absent when the elements come from a bundler. */
export interface BioIDSDKGlobal {
  version: string;
  /** `BioID` without `confirmVerification`, which belongs on your server (docs/core.md). */
  BioID: typeof BioIDCore;
  createFingerprintReader: typeof core.createFingerprintReader;
  BioIDError: typeof core.BioIDError;
  ReaderAuthError: typeof core.ReaderAuthError;
  brokerTokenSource: typeof core.brokerTokenSource;
  watchReaderStatus: typeof core.watchReaderStatus;
  configureElements: typeof configureElements;
  clearBrokerTokens: typeof core.clearBrokerTokens;
}

declare global {
  interface Window {
    /** The page defaults of every element, set before the script or through `configureElements` (docs/elements.md). */
    BioIDElementsConfig?: BioIDElementsConfig;
    BioIDSDK?: BioIDSDKGlobal;
  }
}
