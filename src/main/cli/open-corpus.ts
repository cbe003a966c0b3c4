/**
 * Opens the corpus a CLI command works on: the session root (flag, else `$DSH_HOME/sessions`, else
 * `~/.dsh/sessions`), its store with the detected encoding, and a query layer without live sessions.
 */
import { isAbsolute, resolve } from 'node:path';
import { InMemoryLiveRegistry } from '../corpus/live-registry.js';
import { SessionQuery } from '../corpus/session-query.js';
import { detectCompression } from '../store/detect-compression.js';
import { JsonlSessionStore } from '../store/jsonl-store.js';
import { defaultSessionRoot } from '../store/store-config.js';
import type { CliIo } from './cli-io.js';

/** A store and the query layer over it. */
export interface OpenedCorpus {
  readonly root: string;
  readonly store: JsonlSessionStore;
  readonly query: SessionQuery;
}

/** Resolves the root once: an explicit `--root` (relative to the working directory) wins. */
export function resolveRoot(io: CliIo, rootFlag: string | undefined): string {
  if (rootFlag !== undefined) return isAbsolute(rootFlag) ? rootFlag : resolve(io.cwd, rootFlag);
  return defaultSessionRoot(io.env);
}

/** Opens the store and query layer over a root. */
export async function openCorpus(root: string): Promise<OpenedCorpus> {
  const store = await JsonlSessionStore.open({ root, compression: await detectCompression(root) });
  const query = new SessionQuery({ registry: new InMemoryLiveRegistry(), storage: store });
  return { root, store, query };
}
