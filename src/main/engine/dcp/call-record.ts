/**
 * Tool calls as the DCP index keeps them (DCP.md §3.1 "calls"): name, raw arguments, the seqs of the assistant
 * message and `tool/call` event, and — computed on demand — the dedup key (§8.3) and file paths (§7.8).
 */
import { dedupKey } from '../../../protocol/dcp/canonical-arguments.js';
import { filePathsOfCall } from '../../../protocol/dcp/file-paths.js';

/** A tool call (§3.1 "calls"). */
export interface CallRecord {
  readonly callId: string;
  readonly name: string;
  /** The raw JSON arguments. */
  readonly arguments: string;
  /** The dedup key `<name>::<canonical arguments>` (§8.3). */
  readonly key: string;
  /** The seq of its `tool/call` event, once logged. */
  readonly callSeq?: number;
  /** The seq of the appended assistant message that holds the call. */
  readonly assistantSeq?: number;
  /** File paths named by the arguments (§7.8). */
  readonly filePaths: readonly string[];
}

/**
 * A call as the index keeps it. The dedup key and the file paths parse the arguments, so they are computed on
 * first use and cached: most calls are never asked, and a large `apply_patch` would otherwise be copied into a key.
 */
export class CallEntry implements CallRecord {
  readonly callId: string;
  readonly name: string;
  readonly arguments: string;
  callSeq?: number;
  assistantSeq?: number;
  #key: string | undefined;
  #filePaths: readonly string[] | undefined;

  /** A call named `name` with its raw JSON `rawArguments`; the seqs are set as the events arrive. */
  constructor(callId: string, name: string, rawArguments: string) {
    this.callId = callId;
    this.name = name;
    this.arguments = rawArguments;
  }

  /** The dedup key, computed on first use. */
  get key(): string {
    return (this.#key ??= dedupKey(this.name, this.arguments));
  }

  /** The file paths of the arguments, computed on first use. */
  get filePaths(): readonly string[] {
    return (this.#filePaths ??= Object.freeze(filePathsOfCall(this.name, this.arguments)));
  }

  /** Plain data for snapshots. */
  toJSON(): Record<string, unknown> {
    return {
      callId: this.callId,
      name: this.name,
      arguments: this.arguments,
      key: this.key,
      callSeq: this.callSeq,
      assistantSeq: this.assistantSeq,
      filePaths: this.filePaths,
    };
  }
}

/** The raw JSON text of tool-call arguments; a parsed value is serialised, as the estimator does. */
export function rawArguments(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
}
