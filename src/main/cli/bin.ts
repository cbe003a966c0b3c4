#!/usr/bin/env node
/**
 * The `sessionctx` executable.
 */
import { processIo } from './cli-io.js';
import { runCli } from './run-cli.js';

process.exitCode = await runCli(process.argv.slice(2), processIo());
