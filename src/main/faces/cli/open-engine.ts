/**
 * The CLI's one composition root: every command that reads a session root builds the same engine a library
 * user gets from `createEngine` (stages on the worker pool unless `--no-workers`, the root's own encoding,
 * title observations from the title index), and every command reaches its sessions through the one
 * {@link SessionCatalog} over it (docs/ARCHITECTURE.md "Faces and the catalog"): parse, one catalog call, format.
 */
import { stat } from 'node:fs/promises';
import { createEngine } from '../../engine/assembly/create-engine.js';
import type { LocalSessionEngine } from '../../engine/assembly/create-engine.js';
import { AmbiguousSessionPrefixError } from '../../catalog/catalog-error.js';
import { SessionCatalog } from '../../catalog/session-catalog.js';
import { CliError } from './cli-error.js';
import type { CommandContext } from './command-context.js';
import { ListingWarnings } from './listing-warnings.js';
import { fleetWarnings } from './fleet-warnings.js';
import { writeTitleFailure } from './title-failure-warning.js';

/**
 * Fails with `CLI_ROOT_NOT_FOUND` when the configured root does not exist. dsh's store treats a missing root
 * as an empty corpus; a person who typed `--root /nonexistent` has made a mistake, and "no sessions" would hide it.
 * @param root - the resolved session root.
 */
export async function assertRootExists(root: string): Promise<void> {
  const found = await stat(root).then(
    () => true,
    (error: unknown) => {
      if ((error as { code?: unknown }).code === 'ENOENT') return false;
      // Any other failure (a permission error on a parent, a loop) is reported by the store with its own code.
      return true;
    },
  );
  if (!found)
    throw new CliError(
      'CLI_ROOT_NOT_FOUND',
      `session root "${root}" does not exist (set it with --root, SESSIONCTX_ROOT or the config file)`,
    );
}

/**
 * Builds the engine over the configured root, runs `work` with it and closes it.
 * @param context - the command's context.
 * @param work - what the command does with the engine.
 * @param options - `createsRoot`: the command writes sessions and may start from a missing root; `longLived`: the
 *   command serves many requests (`mcp`), so discovery keeps the warm corpus view (one-shot commands list cold);
 *   `onSearchProgress`: progress of the search index's update (`search`); `onListingProgress`: progress of a cold
 *   listing's header reads (`sessions`); `publishes`: with a shared corpus index, whether the command publishes the
 *   root; `searches`: the command's work searches (`search`), so the search thread starts with the engine and boots
 *   while the command lists the root.
 * @returns what `work` returns.
 */
export async function withEngine<T>(
  context: CommandContext,
  work: (engine: LocalSessionEngine) => Promise<T>,
  {
    createsRoot = false,
    longLived = false,
    onSearchProgress,
    onListingProgress,
    publishes = true,
    searches = false,
  }: {
    readonly createsRoot?: boolean;
    readonly longLived?: boolean;
    readonly onSearchProgress?: (done: number, total: number) => void;
    readonly onListingProgress?: (checked: number, total: number) => void;
    /** With a shared corpus index: whether this command publishes the root (`fleet status` only asks). */
    readonly publishes?: boolean;
    readonly searches?: boolean;
  } = {},
): Promise<T> {
  const { config } = context.resolved;
  // A command that writes sessions (script run) creates a missing root; every other command needs it to exist.
  if (!createsRoot) await assertRootExists(config.root);
  const { io } = context;
  const warnings = new ListingWarnings(io, config.root);
  const engine = await createEngine({
    root: config.root,
    workers: context.workers,
    poolSize: config.poolSize,
    // The title index's cache location follows the command's environment (XDG_CACHE_HOME, HOME).
    store: {
      env: io.env,
      ...(onListingProgress === undefined ? {} : { onListingProgress: ({ checked, total }) => onListingProgress(checked, total) }),
    },
    // One-shot commands list once: no watches, no sweep (discovery as a cold scan, as before).
    corpus: { watch: longLived },
    search: config.search,
    // A serving command answers searches, a search command one: the search thread starts now, not inside the first
    // search (a one-shot search's thread then boots beside the command's listing instead of after it).
    startSearchWorker: longLived || searches,
    ...(onSearchProgress === undefined ? {} : { onSearchProgress }),
    reference: { maxReferences: config.maxReferences, maxReferenceBytes: config.maxReferenceBytes, candidateLimit: config.candidateLimit },
    // Aggregated: the first few one line each, then one summary by code (a whole root's problem is not 1,200 lines).
    onListingProblem: (problem) => warnings.add(problem),
    // One line each, the id quoted bounded (a log's id may be long).
    onTitleFailure: (sessionId, reason) => writeTitleFailure(io, sessionId, reason),
    // A shared corpus index (issue 29): the root is published in the background, discovery asks the whole fleet.
    corpusIndex: context.resolved.corpusIndex,
    fleetPublish: publishes,
    onFleetEvent: fleetWarnings(io),
  });
  try {
    return await work(engine);
  } finally {
    await engine.close();
    warnings.finish();
  }
}

/** What a command's work gets: the catalog it asks of sessions, and the engine for what is no session read. */
export interface CatalogRun {
  /** Every session-facing read: listing, titles, id prefixes, surfaces, discovery, preparation, search. */
  readonly catalog: SessionCatalog;
  /** The engine itself, for writes (`dcp`, `script run`), its pool and the servers it backs. */
  readonly engine: LocalSessionEngine;
}

/**
 * {@link withEngine} with the catalog over the engine: an id prefix of several sessions (the catalog's
 * `invalid-argument` refusal) is the CLI's `CLI_SESSION_ID_AMBIGUOUS`.
 * @param context - the command's context.
 * @param work - what the command does with the catalog (and, for what is no session read, the engine).
 * @param options - as for {@link withEngine}.
 */
export function withCatalog<T>(
  context: CommandContext,
  work: (run: CatalogRun) => Promise<T>,
  options?: Parameters<typeof withEngine>[2],
): Promise<T> {
  return withEngine(
    context,
    async (engine) => {
      const { config } = context.resolved;
      const catalog = new SessionCatalog(engine, { pageSize: config.candidateLimit, dcp: context.resolved.dcp.config });
      try {
        return await work({ catalog, engine });
      } catch (error) {
        if (error instanceof AmbiguousSessionPrefixError) throw new CliError('CLI_SESSION_ID_AMBIGUOUS', error.message);
        throw error;
      }
    },
    options,
  );
}
