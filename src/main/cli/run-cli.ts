/**
 * The `sessionctx` command: parses the command line, runs one command, maps failures to exit
 * statuses (0 ok, 1 failed, 2 usage).
 */
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { CliIo } from './cli-io.js';
import { writeJson, writeLines } from './cli-io.js';
import { reportError } from './error-output.js';
import { CONFIG_FILE_NAME, describeConfig, resolveCompositionConfig } from '../config/composition-config.js';
import { UsageError } from './usage-error.js';
import { runCandidatesCommand } from './commands/candidates-command.js';
import { runMentionCommand } from './commands/mention-command.js';
import { runPrepareCommand } from './commands/prepare-command.js';
import { runSessionsCommand } from './commands/sessions-command.js';
import { runShowCommand } from './commands/show-command.js';
import { runScriptCommand } from './commands/script-command.js';
import { runIndexCommand } from './commands/index-command.js';
import { dcpPlugin } from '../dcp/dcp-plugin.js';
import { WorkerPool } from '../pool/worker-pool.js';
import { runDemoCommand } from './commands/demo-command.js';
import { runDcpCommand } from './commands/dcp-command.js';

const OPTIONS = {
  root: { type: 'string' },
  config: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  log: { type: 'boolean' },
  label: { type: 'string' },
  query: { type: 'string' },
  target: { type: 'string' },
  cwd: { type: 'string' },
  limit: { type: 'string' },
  'max-bytes': { type: 'string' },
  'max-references': { type: 'string' },
  'message-file': { type: 'string' },
  session: { type: 'string' },
  raw: { type: 'boolean' },
  'into-context': { type: 'boolean' },
} as const;

type OptionName = keyof typeof OPTIONS;
type ParsedValues = { [K in OptionName]?: (typeof OPTIONS)[K]['type'] extends 'string' ? string : boolean };

/** Each command: its usage line, what it does, and the flags it accepts besides --json/--help. */
const COMMANDS = {
  sessions: {
    usage: 'sessionctx sessions [--root DIR] [--query Q [--target ID] [--cwd DIR] [--limit N]] [--json]',
    summary: 'list sessions with titles; with --query (or --target/--cwd/--limit) the ranked candidates a message could cite, with mentions',
    flags: ['root', 'query', 'target', 'cwd', 'limit'],
  },
  show: {
    usage: 'sessionctx show <id> [--log] [--root DIR] [--json]',
    summary: "print a session's current surface, or with --log its whole log",
    flags: ['root', 'log'],
  },
  mention: {
    usage: 'sessionctx mention <id> [--label L] [--json]',
    summary: 'print the canonical mention @[label](dsh-session:…) for a session id',
    flags: ['label'],
  },
  prepare: {
    usage: 'sessionctx prepare --target <id> [--max-bytes N] [--max-references N] [--root DIR] ("<message>" | --message-file F | --message-file -) [--json]',
    summary: 'print what the model would receive for a user message citing other sessions',
    flags: ['root', 'target', 'max-bytes', 'max-references', 'message-file'],
  },
  index: {
    usage: 'sessionctx index build|status|clear [--root DIR] [--json]',
    summary: 'build, inspect or remove the persistent title index that makes discovery fast (a progress bar on a terminal)',
    flags: ['root'],
  },
  script: {
    usage: 'sessionctx script run <scenario.json> [--root DIR] [--json]',
    summary: 'run a scripted scenario (prompts, scripted model replies, tool results, commands) on the real host and write the session into the store',
    flags: ['root'],
  },
  dcp: {
    usage: 'sessionctx dcp <stats|context|show|manual|sweep|compress|decompress|recompress> [args…] [--raw|--into-context] --session <id> [--root DIR] [--json]',
    summary: 'run one /dcp command on a stored session; commands that change it (manual on|off, sweep, decompress --into-context, recompress, compress) append their events',
    flags: ['root', 'session', 'raw', 'into-context'],
  },
  config: {
    usage: 'sessionctx config [--config F] [--root DIR] [--json]',
    summary: 'print the effective configuration and where each value came from (flag, SESSIONCTX_* environment, config file, default)',
    flags: ['root'],
  },
  demo: {
    usage: 'sessionctx demo [--root DIR] [--json]',
    summary: 'write a demo corpus (to a temporary directory unless --root) and walk through discovery, mentions, snapshots, budgets and errors',
    flags: ['root'],
  },
} as const satisfies Record<string, { usage: string; summary: string; flags: readonly OptionName[] }>;

type CommandName = keyof typeof COMMANDS;

function isCommandName(value: string): value is CommandName {
  return Object.hasOwn(COMMANDS, value);
}

/** The general help text. */
export function helpText(): string {
  return [
    'sessionctx — read DeepSeek Harness session logs, reference other sessions, prune context',
    '',
    'Commands:',
    ...Object.values(COMMANDS).flatMap((command) => [`  ${command.usage}`, `      ${command.summary}`]),
    '',
    'Common flags:',
    '  --root DIR   the session root (default: $SESSIONCTX_ROOT, the config file\'s root, $DSH_HOME/sessions, else ~/.dsh/sessions)',
    '  --config F   the configuration file (default: ./sessionctx.config.json when present)',
    '  --json       machine-readable output; failures print {"error":{"code","message"}} and exit 1',
    '  --help       help for a command',
    'Exit status: 0 ok, 1 failed, 2 usage error.',
  ].join('\n');
}

/** Runs one command line and returns the process exit status. */
export async function runCli(argv: readonly string[], io: CliIo, signal?: AbortSignal): Promise<number> {
  const json = argv.includes('--json');
  try {
    const { values, positionals } = parseArguments(argv);
    const [name, ...rest] = positionals;
    if (name === undefined || name === 'help') {
      writeLines(io, [helpText()]);
      return name === undefined && values.help !== true ? 2 : 0;
    }
    if (!isCommandName(name)) throw new UsageError(`unknown command "${name}"; run sessionctx --help`);
    const command = COMMANDS[name];
    if (values.help === true) {
      writeLines(io, [`Usage: ${command.usage}`, command.summary]);
      return 0;
    }
    for (const flag of Object.keys(values) as OptionName[]) {
      if (flag !== 'json' && flag !== 'help' && flag !== 'config' && !(command.flags as readonly OptionName[]).includes(flag)) {
        throw new UsageError(`sessionctx ${name} does not take --${flag}; usage: ${command.usage}`);
      }
    }
    await runCommand(name, rest, values, json, io, signal);
    return 0;
  } catch (error) {
    return reportError(io, error, json);
  }
}

async function runCommand(name: CommandName, rest: readonly string[], values: ParsedValues, json: boolean, io: CliIo, signal: AbortSignal | undefined): Promise<void> {
  const resolved = await resolveCompositionConfig({
    cwd: io.cwd,
    env: io.env,
    ...(values.config !== undefined ? { configFile: values.config } : {}),
    flags: {
      root: values.root,
      maxReferences: numberFlag('max-references', values['max-references']),
      maxReferenceBytes: numberFlag('max-bytes', values['max-bytes']),
    },
  });
  const { config } = resolved;
  const root = (): string => config.root;
  switch (name) {
    case 'sessions': {
      expectPositionals(name, rest, 0);
      const discovery = values.query !== undefined || values.target !== undefined || values.cwd !== undefined || values.limit !== undefined;
      if (!discovery) return runSessionsCommand(io, { root: root(), json }, signal);
      return runCandidatesCommand(
        io,
        { root: root(), json, query: values.query ?? '', target: values.target, cwd: values.cwd, limit: numberFlag('limit', values.limit) ?? config.candidateLimit },
        signal,
      );
    }
    case 'show': {
      const [id] = expectPositionals(name, rest, 1);
      return runShowCommand(io, { root: root(), json, id: id as string, log: values.log === true }, signal);
    }
    case 'mention': {
      const [id] = expectPositionals(name, rest, 1);
      runMentionCommand(io, { id: id as string, label: values.label, json });
      return;
    }
    case 'prepare': {
      if (values.target === undefined) throw new UsageError(`sessionctx prepare needs --target <id>; usage: ${COMMANDS.prepare.usage}`);
      const message = await readMessage(io, rest, values['message-file']);
      return runPrepareCommand(
        io,
        {
          root: root(),
          json,
          target: values.target,
          message,
          maxBytes: config.maxReferenceBytes,
          maxReferences: config.maxReferences,
        },
        signal,
      );
    }
    case 'index': {
      const [verb] = expectPositionals(name, rest, 1);
      return runIndexCommand(io, { root: root(), json, verb: verb as string }, signal);
    }
    case 'script': {
      const [verb, file] = expectPositionals(name, rest, 2);
      if (verb !== 'run') throw new UsageError(`unknown script verb ${JSON.stringify(verb)}; usage: ${COMMANDS.script.usage}`);
      // Full-log folds of long scenario sessions run on worker threads, started only if one is needed.
      const pool = new WorkerPool({ size: config.poolSize });
      try {
        return await runScriptCommand(io, { root: root(), json, file: file as string, plugins: [dcpPlugin({ fullLogTasks: { runner: pool } })] });
      } finally {
        await pool.close();
      }
    }
    case 'dcp':
      if (values.session === undefined || rest.length === 0) throw new UsageError(`usage: ${COMMANDS.dcp.usage}`);
      return runDcpCommand(io, {
        root: root(),
        json,
        sessionId: values.session,
        args: [...rest, ...(values.raw === true ? ['--raw'] : []), ...(values['into-context'] === true ? ['--into-context'] : [])],
        dcpConfig: config.dcp,
        poolSize: config.poolSize,
      });
    case 'config':
      expectPositionals(name, rest, 0);
      if (json) writeJson(io, { config: resolved.config, sources: resolved.sources, file: resolved.file ?? null });
      else writeLines(io, [resolved.file !== undefined ? `config file: ${resolved.file}` : `config file: none (looked for ${CONFIG_FILE_NAME} in ${io.cwd})`, ...describeConfig(resolved)]);
      return;
    case 'demo':
      expectPositionals(name, rest, 0);
      return runDemoCommand(io, { root: values.root === undefined ? undefined : root(), json }, signal);
    default: {
      const unreachable: never = name;
      throw new UsageError(`unknown command "${String(unreachable)}"`);
    }
  }
}

function parseArguments(argv: readonly string[]): { values: ParsedValues; positionals: string[] } {
  try {
    const parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
    return { values: parsed.values as ParsedValues, positionals: parsed.positionals };
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

function expectPositionals(command: CommandName, rest: readonly string[], count: number): readonly string[] {
  if (rest.length !== count) throw new UsageError(`usage: ${COMMANDS[command].usage}`);
  return rest;
}

/**
 * A numeric flag. Text that is not a number is a usage error; a number is passed on, so the
 * service's own validation (positive safe integer) reports out-of-range values with its code.
 */
function numberFlag(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (value.trim() === '' || Number.isNaN(parsed)) throw new UsageError(`--${flag} takes a number, got ${JSON.stringify(value)}`);
  return parsed;
}

/** The message: one positional argument, or `--message-file F` (`-` for standard input), not both. */
async function readMessage(io: CliIo, rest: readonly string[], messageFile: string | undefined): Promise<string> {
  if (messageFile !== undefined) {
    if (rest.length > 0) throw new UsageError('give the message either as an argument or with --message-file, not both');
    if (messageFile === '-') return io.readStdin();
    return readFile(isAbsolute(messageFile) ? messageFile : resolve(io.cwd, messageFile), 'utf8');
  }
  if (rest.length !== 1) throw new UsageError(`usage: ${COMMANDS.prepare.usage}`);
  return rest[0] as string;
}
