/**
 * `sessionctx serve`: the Web front door (issue 18, docs/WEB.md). Serves the built page and its API from one loopback
 * HTTP server on a warm engine until SIGINT or SIGTERM. The first line on stdout is exactly
 * `sessionctx serve: <url with the token>`; diagnostics go to stderr. Read-only on the corpus.
 */
import { escapeTerminalText } from '../../../../protocol/uri/display-escape.js';
import { openBrowser } from '../../web/open-browser.js';
import { startWebServer } from '../../web/web-server.js';
import type { CliCommandDefinition } from '../cli-command.js';
import { withCatalog } from '../open-engine.js';
import { parsePortOption } from '../port-option.js';
import { diagnosticPrefix } from '../terminal-style.js';
import { untilStopped } from '../stop-signals.js';

/** The options of `serve`. */
export interface ServeOptions {
  readonly port?: number;
  readonly host?: string;
  readonly open?: boolean;
}

/** `sessionctx serve [--port N] [--host H] [--open]`. */
export const serveCommand: CliCommandDefinition<[], ServeOptions> = {
  name: ['serve'],
  usage: {
    description: 'serve the Web page (sessions, replay, the @ picker, previews, context charts) on a loopback address until stopped',
    examples: ['sessionctx serve --root ~/.dsh/sessions --open', 'sessionctx serve --port 8737'],
  },
  options: [
    {
      flags: '--port <n>',
      description: 'the port (default: "serve": {"port"} of the config file, else 0, any free port)',
      parse: parsePortOption,
    },
    { flags: '--host <host>', description: 'the loopback address to bind (default: 127.0.0.1; other addresses are refused)' },
    { flags: '--open', description: 'open the page in the system browser' },
  ],
  run(context, { options }) {
    const { io } = context;
    const { config } = context.resolved;
    const warn = (message: string): void => {
      io.stderr.write(`${diagnosticPrefix(io, 'warning')}${escapeTerminalText(message)}\n`);
    };
    return withCatalog(
      context,
      async ({ catalog, engine }) => {
        const server = await startWebServer({
          engine,
          ...(options.host === undefined ? {} : { host: options.host }),
          // `--port` over the configuration's `serve.port` (default 0: any free port).
          port: options.port ?? config.serve.port,
          budget: { maxReferences: config.maxReferences, maxReferenceBytes: config.maxReferenceBytes },
          catalog,
          search: (query, signal) => catalog.searchPage(query, signal),
        });
        // Listening for the stop signals before the URL is printed (src/main/faces/cli/stop-signals.ts).
        const stopped = untilStopped(context.signal);
        io.stdout.write(`sessionctx serve: ${server.url}\n`);
        // Build the warm listing now, not at the page's first request.
        catalog.listingReport().catch((error: unknown) => {
          warn(`could not list ${config.root} yet: ${error instanceof Error ? error.message : String(error)}`);
        });
        if (options.open === true) openBrowser(server.url, warn);
        await stopped;
        await server.close();
      },
      { longLived: true },
    );
  },
};
