/**
 * Opens the corpus a CLI command works on: the configured session root, its store with the
 * detected encoding, and a query layer without live sessions.
 */
import { InMemoryLiveRegistry } from '../corpus/live-registry.js';
import { SessionQuery } from '../corpus/session-query.js';
import { detectCompression } from '../store/detect-compression.js';
import { JsonlSessionStore } from '../store/jsonl-store.js';

/** A store and the query layer over it. */
export interface OpenedCorpus {
  readonly root: string;
  readonly store: JsonlSessionStore;
  readonly query: SessionQuery;
}

/**
 * Opens the store and query layer over a root. `env` is the command's environment (`CliIo.env`): it decides the
 * user cache directory that holds the title index (default `process.env`).
 */
export async function openCorpus(root: string, env: NodeJS.ProcessEnv = process.env): Promise<OpenedCorpus> {
  const store = await JsonlSessionStore.open({ root, compression: await detectCompression(root), env });
  const query = new SessionQuery({ registry: new InMemoryLiveRegistry(), storage: store });
  return { root, store, query };
}
