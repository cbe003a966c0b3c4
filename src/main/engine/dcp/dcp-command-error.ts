/**
 * The error of a `/dcp` command run on a stored session (`runStoredDcpCommand`, the `sessionctx dcp` CLI). In a
 * live host a failed command is a `{kind:'error'}` result shown to the human (DCP.md §11.1); a stored-session run
 * has no human in the loop, so the failure is thrown with a stable code and nothing is appended to the log.
 */

/** Stable codes of a failed stored-session `/dcp` command. */
export type DcpCommandErrorCode =
  /** The arguments are not a `/dcp` command: unknown sub-command, bad or missing block ref, unknown flag (§11.2). */
  | 'DCP_COMMAND_USAGE'
  /** `show`, `decompress` or `recompress` names a block the session does not have. */
  | 'DCP_BLOCK_NOT_FOUND'
  /**
   * The command ran and refused: compression disabled, an expansion or recompression whose pre-checks failed
   * (§12.2, §12.3), or a control turn that could not do what was scheduled (a sweep while a compaction is busy).
   */
  | 'DCP_COMMAND_REFUSED';

/** A failed stored-session `/dcp` command; `message` is the command's own text (DCP.md §11.2, §11.6). */
export class DcpCommandError extends Error {
  /** The stable classification of this failure. */
  readonly code: DcpCommandErrorCode;
  /** The command line as it was run, e.g. `/dcp show b9`. */
  readonly command: string;

  constructor(code: DcpCommandErrorCode, command: string, message: string) {
    super(message);
    this.code = code;
    this.command = command;
    Object.defineProperty(this, 'name', { value: 'DcpCommandError', enumerable: false, configurable: true, writable: true });
  }
}
