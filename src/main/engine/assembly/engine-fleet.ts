/**
 * The engine's part in a fleet (issue 29, README "Beyond one machine"), built only for the `postgres` corpus index
 * (so `pg` is loaded only then): the shared index over one lazily opened connection, the background publisher of the
 * engine's root — started now, told of every change the warm corpus view sees (the signal MCP's `resources/subscribe`
 * listens to; no second watcher) — and discovery over every published corpus, which waits for this engine's first
 * publish attempt so its own sessions are in its first fleet answer whenever the server allows.
 */
import type { StoreLayout } from '../../../io/artifact-path.js';
import { BackgroundPublisher, type FleetPublishEvent, type PublishRetry } from '../fleet/background-publisher.js';
import type { PostgresCorpusIndexConfig } from '../fleet/corpus-index-config.js';
import type { PublishSource, PublishSummary } from '../fleet/corpus-publisher.js';
import { FleetError } from '../fleet/fleet-error.js';
import type { FleetStatus } from '../fleet/fleet-status.js';
import { createSharedCorpusIndex } from '../fleet/shared-corpus-index.js';
import type { Candidate, ReferenceTarget } from '../reference/reference-types.js';

/** What the fleet part is built from. */
export interface EngineFleetInput {
  readonly config: PostgresCorpusIndexConfig;
  /** The root's layout. */
  readonly layout: StoreLayout;
  /** The engine's listing and titles (discovery's: the warm view's memory when the engine keeps one). */
  readonly source: PublishSource;
  /** Whether this engine publishes its root (`false`: it only asks, as `fleet status` does). */
  readonly publishes: boolean;
  /** The warm view's change signal, when the engine keeps one. */
  readonly onCorpusChange: (listener: () => void) => (() => void) | undefined;
  readonly onEvent?: (event: FleetPublishEvent) => void;
  readonly retry?: PublishRetry;
}

/** The fleet part of one engine. */
export interface EngineFleet {
  /** The corpus id this engine's root is published under. */
  readonly corpusId: string;
  /** Discovery over every published corpus. */
  listCandidates(target: ReferenceTarget, query: string, limit: number, signal?: AbortSignal): Promise<Candidate[]>;
  /** Publishes what changed now and resolves when it is committed. */
  publishNow(): Promise<PublishSummary>;
  /** The index's status. */
  status(signal?: AbortSignal): Promise<FleetStatus>;
  /** Stops publishing (the batch in flight commits or rolls back whole) and closes the connection. */
  close(): Promise<void>;
}

/** Builds the fleet part and starts publishing. */
export function buildEngineFleet(input: EngineFleetInput): EngineFleet {
  const index = createSharedCorpusIndex(input.config, { source: input.source, layout: input.layout });
  const publisher = input.publishes
    ? new BackgroundPublisher({
        publish: (signal, onProgress) => index.publish(signal, onProgress),
        ...(input.onEvent === undefined ? {} : { onEvent: input.onEvent }),
        ...(input.retry === undefined ? {} : { retry: input.retry }),
      })
    : undefined;
  const unsubscribe = publisher === undefined ? undefined : input.onCorpusChange(() => publisher.changed());
  publisher?.start();
  return {
    corpusId: index.corpusId,
    async listCandidates(target, query, limit, signal) {
      await publisher?.firstAttempt();
      return index.listCandidates(target, query, limit, signal);
    },
    publishNow: () =>
      publisher === undefined
        ? Promise.reject(new FleetError('FLEET_NOT_CONFIGURED', 'this engine does not publish its root'))
        : publisher.publishNow(),
    status: (signal) => index.status(signal),
    async close() {
      unsubscribe?.();
      await publisher?.close();
      await index.close();
    },
  };
}
