/**
 * The canonical checkpoint source `{kind:'plugin', plugin:'compact', compactionId, dcp}` (DCP.md §2, §6.1).
 * DCP blocks carry it so that every consumer treats them as compaction checkpoints.
 */
import { isRecord } from '../events.js';
import { COMPACT_PLUGIN, PLUGIN_SOURCE_KIND } from './constants.js';
import type { DcpMetaV1 } from './dcp-meta.js';
import { encodeDcpMeta } from './dcp-meta.js';

/** A DCP checkpoint source, keys in writer order. */
export interface DcpCheckpointSource {
  readonly kind: 'plugin';
  readonly plugin: 'compact';
  readonly compactionId: string;
  readonly dcp: DcpMetaV1;
}

/** True for a source of kind `plugin` from plugin `compact` (any checkpoint, native or DCP). */
export function isCheckpointSource(source: unknown): source is Record<string, unknown> {
  return isRecord(source) && source['kind'] === PLUGIN_SOURCE_KIND && source['plugin'] === COMPACT_PLUGIN;
}

/** A fresh checkpoint source for a DCP block, metadata re-encoded in its exact key order. */
export function dcpCheckpointSource(compactionId: string, meta: DcpMetaV1): DcpCheckpointSource {
  return { kind: 'plugin', plugin: 'compact', compactionId, dcp: encodeDcpMeta(meta) };
}
