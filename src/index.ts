/**
 * `bioid-sdk`: the SDK core. No DOM and no Lit here; safe to import in Node and during server-side
 * rendering (nothing touches window or document at import time).
 */
export { BioID } from './core/bioid.js';
export { createFingerprintReader } from './core/reader.js';
export { BioIDError, ReaderAuthError, WORKSTATION_OFFLINE_TEXT } from './core/errors.js';
export { brokerTokenSource, clearBrokerTokens, type BrokerTokenSourceOptions } from './core/token-broker-client.js';
export { connectLocalService, watchReaderStatus, type StatusWatchOptions } from './core/status-watch.js';
export { version } from './version.js';
export type { BioIDErrorCode, BioIDErrorOptions, TokenErrorCode } from './core/errors.js';
export type { TokenSource } from './core/token-source.js';
export type { ConfirmVerificationOptions, ConfirmedVerification } from './core/confirm-verification.js';
export type { BioIDAuth, BioIDConfig, FingerprintReaderConfig, IdpClientCredentialsAuth, TokenProviderAuth } from './core/config.js';
export type {
  CaptureOptions,
  DispatchTarget,
  EnrollResult,
  EnrolledRecord,
  EnrolledRecords,
  FingerprintReader,
  OperationOptions,
  ReaderPhase,
  SearchOptions,
  SearchCandidate,
  SearchResult,
  VerifyResult,
} from './core/reader.js';
export type { DeviceInfo, LocalStatus, TestCaptureResult } from './core/discovery.js';
export type { ReaderState, ReaderStatus } from './core/status-watch.js';
export type { FetchLike } from './core/http.js';
