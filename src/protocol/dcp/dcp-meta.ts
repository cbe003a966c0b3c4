/**
 * DCP metadata v1 (`user/message.source.dcp`, DCP.md §6.3) and its total decoder with diagnostics (§6.4).
 * The encoder writes keys in the exact §6.3 order; the decoder never throws, whatever it is given.
 */
import { isPlainRecord, isRecord } from '../record-guard.js';
import {
  BLOCK_REF_RE,
  COMMAND_AUTHOR_MESSAGE_ID,
  COMPACT_PLUGIN,
  DCP_META_VERSION,
  EXPANSION_TOPIC,
  PLUGIN_SOURCE_KIND,
  RANGE_MODE,
  RECOMPRESSION_TOPIC,
  REF_MAX_CHARS,
  TOPIC_MAX_CHARS,
  expansionCallId,
  recompressCallId,
} from './constants.js';

/** Decoded DCP metadata v1. Optional keys are present only when set. */
export interface DcpMetaV1 {
  readonly v: 1;
  readonly kind: 'summary' | 'expansion';
  readonly blockRef: string;
  readonly mode: 'range' | 'message';
  readonly topic: string;
  readonly startRef: string;
  readonly endRef?: string;
  readonly authorMessageId: string;
  readonly compressCallId: string;
  readonly consumedBlockRefs: readonly string[];
  readonly protectedKinds: readonly string[];
  readonly recompressedFrom?: string;
}

/** The diagnostic codes of §6.4, in check order. */
export type DcpMetaErrorCode =
  | 'NOT_COMPACT_SOURCE'
  | 'MISSING_DCP_META'
  | 'UNSUPPORTED_VERSION'
  | 'INVALID_KIND'
  | 'INVALID_BLOCK_REF'
  | 'INVALID_MODE'
  | 'INVALID_TOPIC'
  | 'INVALID_START_REF'
  | 'INVALID_END_REF'
  | 'INVALID_AUTHOR'
  | 'INVALID_CALL'
  | 'INVALID_CONSUMED'
  | 'INVALID_PROTECTED'
  | 'INVALID_RECOMPRESSED';

/** The decoder's result. */
export type DcpMetaDecodeResult =
  | { readonly ok: true; readonly meta: DcpMetaV1 }
  | { readonly ok: false; readonly code: DcpMetaErrorCode; readonly message: string };

/** A fresh metadata object in the exact §6.3 key order; optional keys only when defined; arrays copied. */
export function encodeDcpMeta(meta: DcpMetaV1): DcpMetaV1 {
  const out: Record<string, unknown> = {
    v: meta.v,
    kind: meta.kind,
    blockRef: meta.blockRef,
    mode: meta.mode,
    topic: meta.topic,
    startRef: meta.startRef,
  };
  if (meta.endRef !== undefined) out['endRef'] = meta.endRef;
  out['authorMessageId'] = meta.authorMessageId;
  out['compressCallId'] = meta.compressCallId;
  out['consumedBlockRefs'] = [...meta.consumedBlockRefs];
  out['protectedKinds'] = [...meta.protectedKinds];
  if (meta.recompressedFrom !== undefined) out['recompressedFrom'] = meta.recompressedFrom;
  return out as unknown as DcpMetaV1;
}

/** Inputs of a compress block's metadata (§6.3, column "compress"). */
export interface CompressMetaInput {
  readonly blockRef: string;
  /** The tool's topic, already trimmed. */
  readonly topic: string;
  readonly startRef: string;
  readonly endRef: string;
  /** The author assistant message id, or `unknown`. */
  readonly authorMessageId: string;
  readonly compressCallId: string;
  readonly consumedBlockRefs: readonly string[];
  readonly protectedKinds: readonly string[];
}

/** Metadata of a block made by the `compress` tool. */
export function compressMeta(input: CompressMetaInput): DcpMetaV1 {
  return encodeDcpMeta({
    v: DCP_META_VERSION,
    kind: 'summary',
    blockRef: input.blockRef,
    mode: RANGE_MODE,
    topic: input.topic,
    startRef: input.startRef,
    endRef: input.endRef,
    authorMessageId: input.authorMessageId,
    compressCallId: input.compressCallId,
    consumedBlockRefs: input.consumedBlockRefs,
    protectedKinds: input.protectedKinds,
  });
}

/** Metadata of a semantic expansion `bNew` of `bOld` (§6.3, column "expansion"). */
export function expansionMeta(oldRef: string, newRef: string): DcpMetaV1 {
  return encodeDcpMeta({
    v: DCP_META_VERSION,
    kind: 'expansion',
    blockRef: newRef,
    mode: RANGE_MODE,
    topic: EXPANSION_TOPIC,
    startRef: oldRef,
    endRef: newRef,
    authorMessageId: COMMAND_AUTHOR_MESSAGE_ID,
    compressCallId: expansionCallId(newRef),
    consumedBlockRefs: [oldRef],
    protectedKinds: [],
  });
}

/**
 * Metadata of a recompression `bNew` of `bOld` over its active expansion `expansionRef` (§6.3, column
 * "recompress"); `protectedKinds` are bOld's.
 */
export function recompressMeta(oldRef: string, expansionRef: string, newRef: string, oldProtectedKinds: readonly string[]): DcpMetaV1 {
  return encodeDcpMeta({
    v: DCP_META_VERSION,
    kind: 'summary',
    blockRef: newRef,
    mode: RANGE_MODE,
    topic: RECOMPRESSION_TOPIC,
    startRef: expansionRef,
    authorMessageId: COMMAND_AUTHOR_MESSAGE_ID,
    compressCallId: recompressCallId(newRef),
    consumedBlockRefs: [expansionRef],
    protectedKinds: oldProtectedKinds,
    recompressedFrom: oldRef,
  });
}

/** Renders an arbitrary `v` for the version message without ever throwing (no `String()` on objects). */
function renderVersion(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
    case 'boolean':
    case 'bigint':
    case 'undefined':
      return String(value);
    case 'object':
      return value === null ? 'null' : Array.isArray(value) ? 'array' : 'object';
    case 'symbol':
    case 'function':
      return typeof value;
  }
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

function isStringOfLength(value: unknown, max: number): value is string {
  return typeof value === 'string' && value.length >= 1 && value.length <= max;
}

function isBlockRefString(value: unknown): value is string {
  return typeof value === 'string' && BLOCK_REF_RE.test(value);
}

/** Index-based on purpose: `every` skips holes, and a sparse array must not pass as a list of strings. */
function isArrayOf(value: unknown, predicate: (item: unknown) => boolean): value is unknown[] {
  if (!Array.isArray(value)) return false;
  for (let index = 0; index < value.length; index += 1) {
    if (!predicate(value[index])) return false;
  }
  return true;
}

function invalid(code: DcpMetaErrorCode, field: string): DcpMetaDecodeResult {
  return { ok: false, code, message: `dcp.${field} is invalid` };
}

/**
 * Decodes `source.dcp` of a message source (§6.4). Total: returns `{ok:true, meta}` with a normalised copy
 * (arrays cloned, optional keys only when present, unknown keys dropped) or `{ok:false, code, message}` for
 * the first failing check, in the documented order.
 */
export function decodeDcpMeta(source: unknown): DcpMetaDecodeResult {
  if (!isRecord(source) || source['kind'] !== PLUGIN_SOURCE_KIND || source['plugin'] !== COMPACT_PLUGIN) {
    return { ok: false, code: 'NOT_COMPACT_SOURCE', message: 'source is not a compaction checkpoint' };
  }
  if (!Object.hasOwn(source, 'dcp') || source['dcp'] === undefined) {
    return { ok: false, code: 'MISSING_DCP_META', message: 'checkpoint has no dcp metadata' };
  }
  const dcp = source['dcp'];
  if (!isPlainRecord(dcp) || dcp['v'] !== DCP_META_VERSION) {
    const version = isPlainRecord(dcp) ? dcp['v'] : undefined;
    return { ok: false, code: 'UNSUPPORTED_VERSION', message: `dcp metadata version ${renderVersion(version)} is not supported` };
  }
  const {
    kind,
    blockRef,
    mode,
    topic,
    startRef,
    endRef,
    authorMessageId,
    compressCallId,
    consumedBlockRefs,
    protectedKinds,
    recompressedFrom,
  } = dcp;
  if (kind !== 'summary' && kind !== 'expansion') return invalid('INVALID_KIND', 'kind');
  if (!isBlockRefString(blockRef)) return invalid('INVALID_BLOCK_REF', 'blockRef');
  if (mode !== 'range' && mode !== 'message') return invalid('INVALID_MODE', 'mode');
  if (!isStringOfLength(topic, TOPIC_MAX_CHARS)) return invalid('INVALID_TOPIC', 'topic');
  if (!isStringOfLength(startRef, REF_MAX_CHARS)) return invalid('INVALID_START_REF', 'startRef');
  if (endRef !== undefined && !isNonEmptyString(endRef)) return invalid('INVALID_END_REF', 'endRef');
  if (!isNonEmptyString(authorMessageId)) return invalid('INVALID_AUTHOR', 'authorMessageId');
  if (!isNonEmptyString(compressCallId)) return invalid('INVALID_CALL', 'compressCallId');
  if (!isArrayOf(consumedBlockRefs, isBlockRefString)) return invalid('INVALID_CONSUMED', 'consumedBlockRefs');
  if (!isArrayOf(protectedKinds, (item) => typeof item === 'string')) return invalid('INVALID_PROTECTED', 'protectedKinds');
  if (recompressedFrom !== undefined && !isBlockRefString(recompressedFrom)) return invalid('INVALID_RECOMPRESSED', 'recompressedFrom');
  const meta: DcpMetaV1 = encodeDcpMeta({
    v: DCP_META_VERSION,
    kind,
    blockRef,
    mode,
    topic,
    startRef,
    ...(endRef !== undefined ? { endRef: endRef as string } : {}),
    authorMessageId,
    compressCallId,
    consumedBlockRefs: consumedBlockRefs as string[],
    protectedKinds: protectedKinds as string[],
    ...(recompressedFrom !== undefined ? { recompressedFrom: recompressedFrom as string } : {}),
  });
  return { ok: true, meta };
}
