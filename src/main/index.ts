/**
 * The public API of sessionctx.
 */
export * from '../protocol/events.js';
export * from '../protocol/errors.js';
export { foldSurface, classifyEvents, deriveModelMessages, SurfaceFold } from '../protocol/surface-fold.js';
export type { EventClassification } from '../protocol/surface-fold.js';
export { foldTitle } from '../protocol/title-fold.js';
export { isCompactionCheckpoint } from '../protocol/checkpoint.js';
export { encodeSegment, projectKey, projectDirName } from '../protocol/storage-paths.js';
export type { Compression } from '../protocol/storage-paths.js';
export { JsonlSessionStore } from './store/jsonl-store.js';
export type { ArtifactInspection } from './store/jsonl-store.js';
export { defaultSessionRoot, resolveJsonlStoreConfig } from './store/store-config.js';
export type { JsonlStoreConfig, JsonlStoreOptions } from './store/store-config.js';
export { detectCompression } from './store/detect-compression.js';
export { SessionQuery, isSessionQueryError } from './corpus/session-query.js';
export type {
  SessionRecord,
  SessionTitleObservation,
  SessionTitleValue,
  FulfilledTitleObservation,
  RejectedTitleObservation,
  SessionQueryOptions,
} from './corpus/session-query.js';
export { InMemoryLiveRegistry } from './corpus/live-registry.js';
export type { LiveRegistry, LiveSession } from './corpus/live-registry.js';
export type { SessionStorage, SessionInspection } from './corpus/session-storage.js';
