#!/usr/bin/env node
/**
 * The `sessionctx` executable.
 */
import { processIo } from './cli-io.js';
import { runCli } from './run-cli.js';

// A reader that stops early (`sessionctx show … --log | head -1`) closes the pipe: that is the reader's
// answer, not a failure, so the process ends quietly with the status it has so far instead of a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

// `sessionctx search …` needs the search thread: it boots while the command's modules load, not after (issue 27).
const commandName = process.argv.slice(2).find((argument) => !argument.startsWith('-'));
if (commandName === 'search') (await import('../../engine/search/search-worker-thread.js')).prestartSearchWorker();

process.exitCode = await runCli(process.argv.slice(2), processIo());
