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

/** Opens the store and query layer over a root. */
export async function openCorpus(root: string): Promise<OpenedCorpus> {
  const store = await JsonlSessionStore.open({ root, compression: await detectCompression(root) });
  const query = new SessionQuery({ registry: new InMemoryLiveRegistry(), storage: store });
  return { root, store, query };
}
