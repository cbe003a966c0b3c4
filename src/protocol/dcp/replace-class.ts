/**
 * Replace classification (DCP.md §3.2): every replacing surface event gets exactly one class, decided by its
 * structure (source fields, the metering event right before it), never by a text search over the log.
 */
import type { SessionEvent } from '../events.js';
import { isRecord } from '../events.js';
import { isCheckpointSource } from './checkpoint-source.js';
import { DCP_PLUGIN } from './constants.js';
import type { DcpMetaErrorCode, DcpMetaV1 } from './dcp-meta.js';
import { decodeDcpMeta } from './dcp-meta.js';

/** The eight classes of §3.2. */
export type ReplaceClass = 'dcp-summary' | 'dcp-expansion' | 'dcp-purge' | 'dcp-dedup' | 'dcp-cleanup' | 'native' | 'foreign-dcp' | 'other';

/** A metadata diagnostic of a `foreign-dcp` checkpoint (§6.4). */
export interface DcpDiagnostic {
  readonly code: DcpMetaErrorCode;
  readonly message: string;
}

/** A classified replace: its class, plus the decoded metadata of a DCP block or the diagnostic of a foreign one. */
export type ClassifiedReplace =
  | { readonly kind: 'dcp-summary' | 'dcp-expansion'; readonly meta: DcpMetaV1 }
  | { readonly kind: 'foreign-dcp'; readonly diagnostic: DcpDiagnostic }
  | { readonly kind: Exclude<ReplaceClass, 'dcp-summary' | 'dcp-expansion' | 'foreign-dcp'> };

/** The dedup replacement text of any tool (DCP.md §2), matched whole. */
const DEDUP_TEXT_RE = /^\[duplicate .* output removed; a newer identical call supersedes it\]$/s;

/** True for the DCP classes: `dcp-summary`, `dcp-expansion`, `dcp-purge`, `dcp-dedup`, `dcp-cleanup`. */
export function isDcpClass(kind: ReplaceClass): boolean {
  return kind.startsWith('dcp-');
}

/** True for the native-like classes `native` and `foreign-dcp` (aliases follow only these, §4.5). */
export function isNativeLike(kind: ReplaceClass): boolean {
  return kind === 'native' || kind === 'foreign-dcp';
}

/** True for the checkpoint-class replaces that re-arm nudges (§9 rule 3): DCP blocks, native, foreign-dcp, purge. */
export function isCheckpointClass(kind: ReplaceClass): boolean {
  return kind === 'dcp-summary' || kind === 'dcp-expansion' || kind === 'native' || kind === 'foreign-dcp' || kind === 'dcp-purge';
}

/** True when `previous` is a `compaction/prune` directly before `event` whose range is the replace's range. */
function pricedByPrune(event: SessionEvent, previous: SessionEvent | undefined): boolean {
  const op = event.surfaceOp;
  if (previous === undefined || previous.type !== 'compaction/prune' || previous.seq !== event.seq - 1) return false;
  if (op === undefined || op === 'append') return false;
  const range = isRecord(previous.data) ? previous.data['shadowedRange'] : undefined;
  return isRecord(range) && range['start'] === op.start && range['end'] === op.end;
}

/** True when the first block of a tool result message holds exactly one text block with the dedup text. */
function carriesDedupText(message: unknown): boolean {
  const content = isRecord(message) ? message['content'] : undefined;
  const first: unknown = Array.isArray(content) ? content[0] : undefined;
  const inner = isRecord(first) ? first['content'] : undefined;
  if (!Array.isArray(inner) || inner.length !== 1) return false;
  const block: unknown = inner[0];
  return isRecord(block) && block['type'] === 'text' && typeof block['text'] === 'string' && DEDUP_TEXT_RE.test(block['text']);
}

/**
 * Classifies a replacing surface event (§3.2, checks in table order). `previous` is the event stored directly
 * before it (seq − 1), which prices prunes.
 */
export function classifyReplace(event: SessionEvent, previous: SessionEvent | undefined): ClassifiedReplace {
  switch (event.type) {
    case 'user/message': {
      const source = isRecord(event.data) ? event.data['source'] : undefined;
      if (isCheckpointSource(source)) {
        const decoded = decodeDcpMeta(source);
        if (decoded.ok) return { kind: decoded.meta.kind === 'summary' ? 'dcp-summary' : 'dcp-expansion', meta: decoded.meta };
        if (decoded.code === 'MISSING_DCP_META') return { kind: 'native' };
        return { kind: 'foreign-dcp', diagnostic: { code: decoded.code, message: decoded.message } };
      }
      if (isRecord(source) && source['plugin'] === DCP_PLUGIN) return { kind: 'dcp-purge' };
      return { kind: 'native' };
    }
    case 'tool/result': {
      const message = isRecord(event.data) ? event.data['message'] : undefined;
      return pricedByPrune(event, previous) && carriesDedupText(message) ? { kind: 'dcp-dedup' } : { kind: 'other' };
    }
    case 'assistant/message':
      return pricedByPrune(event, previous) ? { kind: 'dcp-cleanup' } : { kind: 'other' };
    default:
      return { kind: 'other' };
  }
}
