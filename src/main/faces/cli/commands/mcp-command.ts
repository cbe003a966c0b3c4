/**
 * `sessionctx mcp`: serves the session root over MCP on standard input and output until the client closes its end,
 * or with `--http` over the SDK's Streamable HTTP transport on a loopback address until stopped (the first line on
 * stdout is then exactly `sessionctx mcp: <url with the token>`). On stdio, standard output carries only protocol
 * messages; every diagnostic goes to standard error. Read-only on the corpus.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { LocalSessionEngine } from '../../../engine/assembly/create-engine.js';
import { startMcpHttpServer } from '../../mcp/mcp-http-server.js';
import { createSessionMcpServer } from '../../mcp/mcp-server.js';
import { McpTransportError } from '../../mcp/mcp-transport-error.js';
import { SessionCatalog } from '../../../catalog/session-catalog.js';
import type { CliCommandDefinition } from '../cli-command.js';
import type { CommandContext } from '../command-context.js';
import { parseCountOption } from '../count-option.js';
import { withCatalog } from '../open-engine.js';
import { packageVersion } from '../package-version.js';
import { parsePortOption } from '../port-option.js';
import { UsageError } from '../usage-error.js';
import { untilStopped } from '../stop-signals.js';

/** The options of `mcp`. */
export interface McpOptions {
  readonly tools?: boolean;
  readonly maxBytes?: number;
  readonly limit?: number;
  readonly http?: boolean;
  readonly port?: number;
  readonly host?: string;
}

/** The SDK's stdio transport's read limit, in MiB, as the error says it. */
const READ_LIMIT_MIB = STDIO_DEFAULT_MAX_BUFFER_SIZE / (1024 * 1024);

/** A new SDK server for one client over the engine (its own catalog: its own roots rank its discovery). */
function serverFactory(context: CommandContext, engine: LocalSessionEngine, options: McpOptions): () => Server {
  const { config } = context.resolved;
  const tools = options.tools !== false && config.mcp.tools;
  const log = (line: string): void => {
    context.io.stderr.write(`${line}\n`);
  };
  return () =>
    createSessionMcpServer({
      catalog: new SessionCatalog(engine, { pageSize: config.candidateLimit, dcp: context.resolved.dcp.config }),
      version: packageVersion(),
      tools,
      log,
      searchBounds: { maxLimit: config.search.maxLimit },
      onCorpusChange: (listener) => engine.onCorpusChange(listener),
    });
}

/** Serves one client on standard input and output until it closes its end. */
async function serveStdio(context: CommandContext, createServer: () => Server): Promise<void> {
  const server = createServer();
  let tooLarge = false;
  const transport = new StdioServerTransport(process.stdin, process.stdout);
  const closed = new Promise<void>((resolve) => {
    const previous = server.onclose;
    server.onclose = () => {
      previous?.();
      resolve();
    };
  });
  server.onerror = (error: Error) => {
    // The SDK's read buffer overflowed: it has dropped what it read and closes the transport next. Say so on both
    // channels (the client gets a JSON-RPC error it can show), then exit non-zero below.
    if (!error.message.startsWith('ReadBuffer exceeded')) return;
    tooLarge = true;
    const message = `a message exceeded the ${READ_LIMIT_MIB} MiB read limit of the stdio transport; the server stops`;
    void transport.send({ jsonrpc: '2.0', id: null as never, error: { code: ErrorCode.InvalidRequest, message } } as never);
    context.io.stderr.write(`sessionctx mcp: ${message}\n`);
  };
  await server.connect(transport);
  // The transport closes when the client closes standard input (or the process is told to stop).
  process.stdin.once('end', () => {
    void server.close();
  });
  context.signal?.addEventListener('abort', () => void server.close(), { once: true });
  await closed;
  if (tooLarge) {
    // Nothing more is read: an open standard input must not keep the process alive after the failure.
    process.stdin.destroy();
    throw new McpTransportError('MCP_MESSAGE_TOO_LARGE', `a message exceeded the ${READ_LIMIT_MIB} MiB read limit of the stdio transport`);
  }
}

/** Serves clients over Streamable HTTP on a loopback address until SIGINT, SIGTERM or the command's signal. */
async function serveHttp(context: CommandContext, createServer: () => Server, options: McpOptions): Promise<void> {
  const server = await startMcpHttpServer({
    createServer,
    ...(options.host === undefined ? {} : { host: options.host }),
    port: options.port ?? 0,
  });
  // Listening for the stop signals before the URL is printed (src/main/faces/cli/stop-signals.ts).
  const stopped = untilStopped(context.signal);
  context.io.stdout.write(`sessionctx mcp: ${server.url}\n`);
  await stopped;
  await server.close();
}

/** `sessionctx mcp [--no-tools] [--http [--port N] [--host H]]`. */
export const mcpCommand: CliCommandDefinition<[], McpOptions> = {
  name: ['mcp'],
  usage: {
    description:
      'serve the sessions as MCP resources, tools and prompts over stdio (for Claude Code, Codex, opencode, …), or with --http over Streamable HTTP on a loopback address',
    examples: [
      'sessionctx mcp --root ~/.dsh/sessions',
      'claude mcp add sessionctx -- sessionctx mcp --root ~/.dsh/sessions',
      'sessionctx mcp --http --port 8738',
    ],
  },
  options: [
    { flags: '--no-tools', description: 'serve resources and prompts only (also: "mcp": {"tools": false} in the config file)' },
    { flags: '--max-bytes <n>', description: 'the byte budget of a snapshot', parse: parseCountOption, configKey: 'maxReferenceBytes' },
    {
      flags: '--limit <n>',
      description: "sessions per resources/list page, and find_sessions' default",
      parse: parseCountOption,
      configKey: 'candidateLimit',
    },
    {
      flags: '--http',
      description: 'serve over Streamable HTTP on a loopback address instead of stdio; prints the URL (with its token) on stdout',
    },
    { flags: '--port <n>', description: 'with --http: the port (default 0, any free port)', parse: parsePortOption },
    { flags: '--host <host>', description: 'with --http: the loopback address to bind (default: 127.0.0.1; other addresses are refused)' },
  ],
  configFlags(options) {
    return { maxReferenceBytes: options.maxBytes, candidateLimit: options.limit };
  },
  run(context, { options }) {
    const { config } = context.resolved;
    if (options.http !== true && (options.port !== undefined || options.host !== undefined)) {
      return Promise.reject(new UsageError(`${options.port === undefined ? '--host' : '--port'} needs --http`));
    }
    return withCatalog(
      context,
      async ({ catalog, engine }) => {
        const createServer = serverFactory(context, engine, options);
        // The warm corpus view announces changes once it holds the listing; build it now, not at the first request.
        catalog.listingReport().catch((error: unknown) => {
          context.io.stderr.write(
            `sessionctx mcp: could not list ${config.root} yet: ${error instanceof Error ? error.message : String(error)}\n`,
          );
        });
        if (options.http === true) await serveHttp(context, createServer, options);
        else await serveStdio(context, createServer);
      },
      { longLived: true },
    );
  },
};
