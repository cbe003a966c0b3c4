/**
 * Citing a session another host published (issue 29, docs/FLEET.md §6): the engine's renderer first, as always; only
 * a session it does not have (`SESSION_QUERY_SESSION_NOT_FOUND`: not live, not in the root) is looked up in the
 * shared corpus index, where its owner published the source-cache entry of each artifact revision. The entry is read
 * by the cache's own reader (format, version and checksum checked, `cache/source-cache-file.ts`), its projection
 * folded as the cache folds a loaded entry, and rendered by the same `renderProjected` the owner's warm preparation
 * uses — so the snapshot is byte for byte what the owner prepares from its log at that revision, with the capture
 * point (`capturedThroughSeq`) of that revision. A remote source is as stale as its owner's last publish.
 */
import type { SessionId } from '../../../protocol/events.js';
import { errorCode } from '../../../protocol/error-code.js';
import { renderProjected } from '../../../workers/reference/render-projected.js';
import { ProjectionFold } from '../../../workers/reference/projection-fold.js';
import { itemsOfRecord } from '../../../workers/tasks/source-cache-record.js';
import { decodeSourceCacheRecord } from '../cache/source-cache-file.js';
import type { OversizedSource, ReferenceSourceRenderer, RenderedSource } from '../reference/reference-types.js';
import type { PublishedSourceRecord } from './corpus-publisher.js';
import { FleetError } from './fleet-error.js';

/** Where remote entries come from (the shared index): the latest published entry of a session on another host. */
export type RemoteSourceLookup = (sessionId: SessionId, signal: AbortSignal) => Promise<PublishedSourceRecord | undefined>;

/** The entry `published` holds, rendered for `label` within `maxBytes`. */
export function renderPublishedSource(published: PublishedSourceRecord, label: string, maxBytes: number): RenderedSource | OversizedSource {
  const record = decodeSourceCacheRecord(published.bytes, published.key);
  if (record === undefined) throw new FleetError('FLEET_QUERY_FAILED', 'a published source entry is damaged or of another format');
  let items: ReturnType<typeof itemsOfRecord>;
  try {
    items = itemsOfRecord(record, ProjectionFold.of(record.nodes));
  } catch {
    throw new FleetError('FLEET_QUERY_FAILED', 'a published source entry does not fold');
  }
  const { header, balancedEvents } = record;
  const render = renderProjected(
    {
      sessionId: header.id,
      label,
      cwd: header.cwd ?? null,
      capturedThroughSeq: balancedEvents === 0 ? null : balancedEvents - 1,
      items,
    },
    maxBytes,
  );
  if (!render.fits) return { fits: false, minimumBudgetBytes: render.minimumBudgetBytes };
  return { fits: true, sessionId: render.sessionId, capturedThroughSeq: render.capturedThroughSeq, json: render.json, stats: render.stats };
}

/** The engine's renderer, with the fleet's published sources for sessions it does not have. */
export class RemoteSourceRenderer implements ReferenceSourceRenderer {
  readonly #local: ReferenceSourceRenderer;
  readonly #lookup: RemoteSourceLookup;

  /** Wraps `local`; `lookup` reads the shared index. */
  constructor(local: ReferenceSourceRenderer, lookup: RemoteSourceLookup) {
    this.#local = local;
    this.#lookup = lookup;
  }

  /**
   * The local rendering, or for a session this engine does not have, the published one.
   * @throws the local renderer's errors (a session no host published stays `SESSION_QUERY_SESSION_NOT_FOUND`);
   *   FleetError from the database
   */
  async render(sessionId: SessionId, label: string, maxBytes: number, signal: AbortSignal): Promise<RenderedSource | OversizedSource> {
    try {
      return await this.#local.render(sessionId, label, maxBytes, signal);
    } catch (error) {
      if (errorCode(error) !== 'SESSION_QUERY_SESSION_NOT_FOUND') throw error;
      signal.throwIfAborted();
      const published = await this.#lookup(sessionId, signal);
      if (published === undefined) throw error;
      signal.throwIfAborted();
      return renderPublishedSource(published, label, maxBytes);
    }
  }
}
