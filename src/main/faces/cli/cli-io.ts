/**
 * The CLI's view of its process: output streams, environment and working directory. Commands
 * write through it so tests can run them in-process and capture exactly what a user sees.
 */
import { escapeTerminalText } from '../../../protocol/uri/display-escape.js';

/** Where a command writes and what it may read of its environment. */
export interface CliIo {
  readonly stdout: { write(text: string): unknown; readonly isTTY?: boolean };
  readonly stderr: { write(text: string): unknown; readonly isTTY?: boolean };
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  /** All of standard input as UTF-8 text. */
  readStdin(): Promise<string>;
}

/** The real process streams. */
export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd(), readStdin: readProcessStdin };
}

async function readProcessStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** Writes one JSON document and a newline. */
export function writeJson(io: CliIo, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/**
 * Writes lines of human-readable text. Control characters other than line feed and tab are made visible
 * (`\u{001B}`), whatever field they came from: ids, cwds, titles and message text are a log's data, and a
 * log must never be able to drive the terminal. `--json` output keeps raw values.
 */
export function writeLines(io: CliIo, lines: readonly string[]): void {
  if (lines.length > 0) io.stdout.write(`${escapeTerminalText(lines.join('\n'))}\n`);
}
