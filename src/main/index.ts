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
export { JsonlSessionStore } from './engine/store/jsonl-store.js';
export type { SessionWriter } from './engine/store/session-writer.js';
export type { ArtifactInspection } from './engine/store/jsonl-store.js';
export { defaultSessionRoot, resolveJsonlStoreConfig } from './engine/store/store-config.js';
export type { JsonlStoreConfig, JsonlStoreOptions, ListingMode } from './engine/store/store-config.js';
export type { ListingProblem, ListingProblemCode, ListingReport } from '../protocol/listing-problem.js';
export { detectCompression } from './engine/store/detect-compression.js';
export { SessionQuery, isSessionQueryError } from './engine/corpus/session-query.js';
export type {
  SessionRecord,
  SessionTitleObservation,
  SessionTitleValue,
  FulfilledTitleObservation,
  RejectedTitleObservation,
  SessionQueryOptions,
  SessionListReport,
} from './engine/corpus/session-query.js';
export { InMemoryLiveRegistry } from './engine/corpus/live-registry.js';
export type { LiveRegistry, LiveSession } from './engine/corpus/live-registry.js';
export type { SessionStorage, SessionInspection } from './engine/corpus/session-storage.js';
export { SessionReferenceService } from './engine/reference/session-reference-service.js';
export type { SessionReferenceServiceOptions } from './engine/reference/session-reference-service.js';
export { sessionReferencePlugin } from './engine/reference/session-reference-plugin.js';
export {
  resolveReferenceConfig,
  MAX_REFERENCES,
  DEFAULT_CANDIDATE_LIMIT,
  DEFAULT_MAX_REFERENCE_BYTES,
} from './engine/reference/reference-config.js';
export type { SessionReferenceConfig, SessionReferenceConfigInput } from './engine/reference/reference-config.js';
export type * from './engine/reference/reference-types.js';
export type { MessageSourceMap, MessageWithSource, ModelSource, PluginSource, UserSource } from '../protocol/message-sources.js';
export { SessionReferenceError } from '../protocol/reference-errors.js';
export type { SessionReferenceErrorCode } from '../protocol/reference-errors.js';
export { SESSION_REFERENCE_SCHEME, encodeSessionReferenceUri, decodeSessionReferenceUri } from '../protocol/uri/session-uri.js';
export { parseSessionReferenceText, parseMessageContent } from '../protocol/uri/mention-parser.js';
export { formatSessionReferenceMention } from '../protocol/uri/mention-formatter.js';
export { escapeDisplayText } from '../protocol/uri/display-escape.js';
export { stringifyTagSafeJson } from '../protocol/tag-safe-json.js';
export { errorChain, turnEndReasonForStepFailure } from '../protocol/error-chain.js';
export { createUserMessage, freezeMessage } from '../protocol/user-message.js';
export type { UserMessage } from '../protocol/user-message.js';
// The host API as types (plugins are written against them); the stand-in host that implements them, its
// scripted model and the test harness are the separate entry point `sessionctx/host` (`host-entry.ts`).
export type * from './host-api/host-api.js';
export type * from '../protocol/event-map.js';
export { isEventOf } from '../protocol/event-map.js';
export { dcpPlugin } from './engine/dcp/dcp-plugin.js';
export type { DcpPlugin, DcpPluginOptions } from './engine/dcp/dcp-plugin.js';
export { DEFAULT_LEDGER_POOL_MIN_EVENTS } from './engine/dcp/ledger-service.js';
export type { FullLogTasksOptions } from './engine/dcp/ledger-service.js';
export { LiveLogTracker } from './engine/live/live-log-tracker.js';
export { resolveDcpConfig } from '../protocol/dcp/config.js';
export { createEngine } from './engine/assembly/create-engine.js';
export type { LocalSessionEngine, LocalSessionEngineOptions } from './engine/assembly/create-engine.js';
export { createEngineThread } from './engine/assembly/engine-thread.js';
export type { SessionEngine, SessionEngineOptions } from './engine/assembly/engine-types.js';
export { WorkerPool } from './engine/pool/worker-pool.js';
// The one face-neutral catalog the CLI, MCP and the Web ask (a library's own face asks it too).
export { SessionCatalog, MAX_COMPLETION_VALUES } from './catalog/session-catalog.js';
export type {
  CatalogEngine,
  CatalogListing,
  CatalogPage,
  CatalogRow,
  FoundSession,
  PreparedSnapshot,
  SessionCatalogOptions,
} from './catalog/session-catalog.js';
export { CatalogError } from './catalog/catalog-error.js';
export type { CatalogErrorCode, CatalogErrorKind } from './catalog/catalog-error.js';
export { resolveCompositionConfig } from './engine/config/composition-config.js';
