/**
 * `sessionctx demo` until the full demo corpus exists: a short printed tour of the commands.
 */
import type { CliIo } from '../cli-io.js';
import { writeLines } from '../cli-io.js';
import { helpText } from '../run-cli.js';

/** Prints what sessionctx can do today and how to try it on a session root. */
export async function runTourCommand(io: CliIo): Promise<void> {
  writeLines(io, [
    'sessionctx reads DeepSeek Harness (dsh) session directories, raw JSONL or zstd, byte-compatibly.',
    '',
    'Try it on a session root (yours is $DSH_HOME/sessions or ~/.dsh/sessions):',
    '  sessionctx sessions --root <dir>            every session with its title',
    '  sessionctx show <id> --root <dir>           what a model would see of that session now',
    '  sessionctx show <id> --log --json           its whole log, crash closers included',
    '',
    helpText(),
  ]);
}
