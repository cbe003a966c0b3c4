/**
 * `sessionctx mcp`: serves the session root over MCP on standard input and output until the client closes its end.
 * Standard output carries only protocol messages; every diagnostic goes to standard error. Read-only on the corpus.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createSessionMcpServer } from '../../mcp/mcp-server.js';
import { SessionCatalog } from '../../mcp/session-catalog.js';
import type { CliCommandDefinition } from '../cli-command.js';
import { parseCountOption } from '../count-option.js';
import { withEngine } from '../open-engine.js';
import { packageVersion } from '../package-version.js';

/** `sessionctx mcp [--no-tools]`. */
export const mcpCommand: CliCommandDefinition<[], { readonly tools?: boolean; readonly maxBytes?: number; readonly limit?: number }> = {
  name: ['mcp'],
  usage: {
    description: 'serve the sessions as MCP resources, tools and prompts over stdio (for Claude Code, Codex, opencode, …)',
    examples: ['sessionctx mcp --root ~/.dsh/sessions', 'claude mcp add sessionctx -- npx -y sessionctx mcp --root ~/.dsh/sessions'],
  },
  options: [
    { flags: '--no-tools', description: 'serve resources and prompts only (also: "mcp": {"tools": false} in the config file)' },
    { flags: '--max-bytes <n>', description: 'the byte budget of a snapshot (default: maxReferenceBytes, 65536)', parse: parseCountOption },
    {
      flags: '--limit <n>',
      description: "sessions per resources/list page, and find_sessions' default (default: candidateLimit, 50)",
      parse: parseCountOption,
    },
  ],
  configFlags(options) {
    return { maxReferenceBytes: options.maxBytes, candidateLimit: options.limit };
  },
  run(context, { options }) {
    const { config } = context.resolved;
    const tools = options.tools !== false && config.mcp.tools;
    const log = (line: string): void => {
      context.io.stderr.write(`${line}\n`);
    };
    return withEngine(
      context,
      async (engine) => {
        const catalog = new SessionCatalog(engine, config.candidateLimit);
        const server = createSessionMcpServer({ catalog, version: packageVersion(), tools, log });
        const closed = new Promise<void>((resolve) => {
          server.onclose = resolve;
        });
        // The warm corpus view announces changes once it holds the listing; build it now, not at the first request.
        const stopWatching =
          engine.onCorpusChange(() => {
            // Only a connected client can be told; a failed send means it is going away, which onclose reports.
            server.sendResourceListChanged().catch(() => undefined);
          }) ?? (() => undefined);
        engine.listSessionsReport().catch((error: unknown) => {
          log(`sessionctx mcp: could not list ${config.root} yet: ${error instanceof Error ? error.message : String(error)}`);
        });
        try {
          await server.connect(new StdioServerTransport(process.stdin, process.stdout));
          // The transport closes when the client closes standard input (or the process is told to stop).
          process.stdin.once('end', () => {
            void server.close();
          });
          context.signal?.addEventListener('abort', () => void server.close(), { once: true });
          await closed;
        } finally {
          stopWatching();
        }
      },
      { longLived: true },
    );
  },
};
