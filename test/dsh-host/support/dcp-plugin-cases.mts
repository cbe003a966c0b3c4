/**
 * What `sessionctx/dsh-dcp` promises a dsh user beyond the fixture conversations (docs/DSH-DCP.md), as cases that
 * run on any release's kit: `dcp-plugin.test.mts` runs them on dsh 0.1.0-rc.8, `test/dsh-host-rc6` on 0.1.0-rc.6.
 * The cases take the test's own `expect` (a support module shared by two packages must not import vitest itself).
 */
import { compressToolDescriptor } from './dcp-dist.mts';
import type { DcpDshKit, KitAgent, KitContext, KitPlugin } from './dcp-kit.mts';
import type { DcpHost } from './dcp-host.mts';
import { bootDcpHost } from './dcp-host.mts';
import { dshDcpStandIn } from './dcp-dsh-dcp-stand-in.mts';

/** vitest's `expect`, as the calling test file imports it. */
type Expect = (value: unknown, message?: string) => any;

/** One case. */
export interface PluginCase {
  readonly name: string;
  run(kit: DcpDshKit, expect: Expect): Promise<void>;
}

/** The plugin's service, as the cases read it. */
interface Service {
  readonly runtime:
    | { readonly followedSessions: number; readonly ledgers: { readonly runs: { pool: number; inThread: number } } }
    | undefined;
  view(session: unknown): unknown;
  readonly viewCount: number;
}

const service = (host: DcpHost): Service | undefined => host.ctx.get('sessionctxDcp') as Service | undefined;

const toolNames = (host: DcpHost): string[] =>
  (host.ctx['tools'] as { schemas(): Array<{ name: string }> }).schemas().map((schema) => schema.name);

/** The outcome of mounting `plugin` now: its error, or `undefined` when it activated. */
async function mountError(ctx: KitContext, plugin: KitPlugin, config?: unknown): Promise<unknown> {
  try {
    const fiber = await ctx.plugin(plugin, config);
    return fiber.state === 2 ? undefined : new Error(`fiber state ${fiber.state}`);
  } catch (error) {
    return error;
  }
}

/** Runs `body` against a fresh host, disposing it afterwards. */
async function withHost(options: Parameters<typeof bootDcpHost>[0], body: (host: DcpHost) => Promise<void>): Promise<void> {
  const host = await bootDcpHost(options);
  try {
    await body(host);
  } finally {
    await host.dispose();
  }
}

const REPLIES = Array.from({ length: 6 }, (_, index) => ({ text: `answer ${index + 1}` }));

/** Expects the refusal naming dsh-dcp. */
function expectConflict(expect: Expect, error: unknown, evidence: string): void {
  expect(error).toBeInstanceOf(Error);
  expect((error as { code?: unknown }).code).toBe('DSH_DCP_CONFLICT');
  expect((error as Error).message).toContain('dsh-dcp (@chiro2001/dsh-dcp)');
  expect((error as Error).message).toContain(evidence);
}

export const PLUGIN_CASES: readonly PluginCase[] = [
  {
    name: "registers with dsh's own services: compress with its exact schema, both commands with descriptions and hints, the guidance section",
    run: (kit, expect) =>
      withHost({ kit, dcp: { compress: { maxRangesPerCall: 5 } }, replies: REPLIES }, async (host) => {
        const schemas = (host.ctx['tools'] as { schemas(): unknown[] }).schemas();
        expect(JSON.stringify(schemas)).toBe(JSON.stringify([compressToolDescriptor(5)]));
        const agent = await host.createAgent('dcp-registrations');
        const commands = (host.ctx['commands'] as { list(agent: KitAgent): unknown[] }).list(agent);
        expect(commands).toEqual([
          {
            name: 'dcp',
            description: 'Dynamic context pruning: context, statistics, manual mode, sweep and compressed blocks',
            input: { hint: 'help|context|stats|manual|compress|sweep|show|decompress|recompress' },
          },
          {
            name: 'dcp-compress',
            description: 'Ask the model to compress closed ranges of this conversation now',
            input: { hint: '[focus]' },
          },
        ]);
        await host.prompt(agent, 'hello');
        expect(host.requests[0]?.system.startsWith('## Context pruning (DCP)\n')).toBe(true);
        expect(JSON.stringify(host.requests[0]?.tools)).toBe(JSON.stringify([compressToolDescriptor(5)]));
        expect(host.mismatches).toEqual([]);
      }),
  },
  {
    name: 'refuses to mount beside dsh-dcp mounted first, naming it; nothing of its own stays registered',
    run: (kit, expect) =>
      withHost({ kit, dcp: null }, async (host) => {
        expect(await mountError(host.ctx, dshDcpStandIn())).toBeUndefined();
        expectConflict(expect, await mountError(host.ctx, kit.dcpPlugin, {}), 'dsh-dcp is already mounted in this host');
        expect(toolNames(host)).toEqual(['compress']);
        expect(host.ctx.get('sessionctxDcp')).toBeUndefined();
      }),
  },
  {
    name: 'refuses dsh-dcp mounted after it, naming it; its own registrations keep working',
    run: (kit, expect) =>
      withHost({ kit, replies: REPLIES }, async (host) => {
        expectConflict(expect, await mountError(host.ctx, dshDcpStandIn()), 'dsh-dcp is being mounted after sessionctx/dsh-dcp');
        const schemas = (host.ctx['tools'] as { schemas(): unknown[] }).schemas();
        expect(JSON.stringify(schemas)).toBe(JSON.stringify([compressToolDescriptor(3)]));
        const agent = await host.createAgent('dcp-after');
        await host.prompt(agent, 'hello');
        expect(JSON.stringify(host.requests[0]?.messages[0])).toContain('<dcp-boundary ref=\\"m0001\\" turn=\\"1\\" step=\\"1\\" />');
      }),
  },
  {
    name: 'refuses to mount when another plugin holds compress, /dcp or the dcp:guidance section, naming dsh-dcp and what it found',
    run: async (kit, expect) => {
      for (const [registration, evidence] of [
        ['section', 'the section "dcp:guidance" is already registered'],
        ['tool', 'the tool "compress" is already registered'],
        ['command', 'the command "dcp" is already registered'],
      ] as const) {
        await withHost({ kit, dcp: null }, async (host) => {
          expect(await mountError(host.ctx, dshDcpStandIn('another-dcp', [registration]))).toBeUndefined();
          expectConflict(expect, await mountError(host.ctx, kit.dcpPlugin, {}), evidence);
          expect((await mountError(host.ctx, kit.dcpPlugin, {})) !== undefined).toBe(true);
        });
      }
    },
  },
  {
    name: "an invalid dcp value fails the mount in DCP's words before anything is registered; unknown keys give one warning",
    run: async (kit, expect) => {
      await withHost({ kit, dcp: null }, async (host) => {
        const error = await mountError(host.ctx, kit.dcpPlugin, { compress: { maxRangesPerCall: 0 } });
        expect((error as { code?: unknown }).code).toBe('DCP_CONFIG_INVALID');
        expect((error as Error).message).toBe('dcp config: compress.maxRangesPerCall must be an integer >= 1');
        expect(toolNames(host)).toEqual([]);
        expect(host.ctx.get('sessionctxDcp')).toBeUndefined();
      });
      await withHost({ kit, dcp: { compress: { summaryBuffer: true }, pruneNotification: 'off' } }, async (host) => {
        const warnings = host.logs.filter((line) => line.type === 'warn').map((line) => line.text);
        expect(warnings).toEqual(['dcp config: unknown keys ignored: compress.summaryBuffer, pruneNotification']);
      });
    },
  },
  {
    name: 'dcp.enabled false mounts nothing: no tool, no command, no section, no markers',
    run: (kit, expect) =>
      withHost({ kit, dcp: { enabled: false }, replies: REPLIES }, async (host) => {
        expect(toolNames(host)).toEqual([]);
        const agent = await host.createAgent('dcp-disabled');
        expect((host.ctx['commands'] as { list(agent: KitAgent): unknown[] }).list(agent)).toEqual([]);
        await host.prompt(agent, 'hello');
        expect(host.requests[0]?.system).toBe('');
        expect(host.requests[0]?.messages.length).toBe(1);
        expect(service(host)?.runtime).toBeUndefined();
      }),
  },
  {
    name: "disposing the plugin's fiber takes back the tool, the commands, the section, the service and the pre-step listener; the host goes on",
    run: (kit, expect) =>
      withHost({ kit, dcp: null, replies: REPLIES }, async (host) => {
        const fiber = (await host.ctx.plugin(kit.dcpPlugin, {})) as unknown as { state: number; dispose(): Promise<void> };
        const agent = await host.createAgent('dcp-unmount');
        await host.prompt(agent, 'one');
        expect(toolNames(host)).toEqual(['compress']);
        const runtime = service(host)?.runtime;
        expect(runtime?.followedSessions).toBe(1);
        await fiber.dispose();
        expect(toolNames(host)).toEqual([]);
        expect((host.ctx['commands'] as { list(agent: KitAgent): unknown[] }).list(agent)).toEqual([]);
        expect(host.ctx.get('sessionctxDcp')).toBeUndefined();
        expect(runtime?.followedSessions).toBe(0);
        await host.prompt(agent, 'two');
        expect(host.requests[1]?.system).toBe('');
        // The marker of the first turn stays in the log; the second turn gets none.
        const markers = (index: number) => JSON.stringify(host.requests[index]?.messages).split('<dcp-boundary ').length - 1;
        expect([markers(0), markers(1)]).toEqual([1, 1]);
        expect(host.mismatches).toEqual([]);
      }),
  },
  {
    name: 'a session dsh disposes leaves the view and the DCP runtime',
    run: (kit, expect) =>
      withHost({ kit, replies: REPLIES }, async (host) => {
        const first = await host.createAgent('dcp-dispose-1');
        const second = await host.createAgent('dcp-dispose-2');
        await host.prompt(first, 'one');
        await host.prompt(second, 'two');
        expect(service(host)?.viewCount).toBe(2);
        expect(service(host)?.runtime?.followedSessions).toBe(2);
        await host.closeAgent(first);
        expect(service(host)?.viewCount).toBe(1);
        expect(service(host)?.runtime?.followedSessions).toBe(1);
        expect(service(host)?.view(first.session)).toBeUndefined();
        expect(service(host)?.view(second.session)).toBeDefined();
        await host.prompt(second, 'three');
        expect(host.mismatches).toEqual([]);
      }),
  },
  {
    name: "a sweep's notice reaches the host's logger and the dcp/notify plugin event",
    run: (kit, expect) =>
      withHost({ kit, replies: REPLIES }, async (host) => {
        const notices: Array<{ name: string; text: string; level: string; sessionId: string }> = [];
        host.ctx.on('dcp/notify', ((notice: { name: string; text: string; level: string; sessionId: string }) => {
          notices.push(notice);
        }) as (...args: never[]) => unknown);
        const agent = await host.createAgent('dcp-notices');
        await host.prompt(agent, 'one');
        const scheduled = await host.command(agent, '/dcp sweep');
        expect(scheduled?.result).toEqual({ kind: 'success', text: 'Sweep scheduled in a control turn (no model request).' });
        expect(notices.map(({ name, text, level, sessionId }) => ({ name, text, level, sessionId }))).toEqual([
          { name: 'dcp', text: 'DCP sweep: nothing to prune.', level: 'info', sessionId: 'dcp-notices' },
        ]);
        expect(host.logs.some((line) => line.type === 'info' && line.text === '/dcp: DCP sweep: nothing to prune.')).toBe(true);
        expect(host.requests.length).toBe(1);
      }),
  },
  {
    name: "statistics live in the plugin's own storage domain (sessionctx_dcp_stats), never in dsh-dcp's dcp_stats",
    run: (kit, expect) =>
      withHost({ kit, storage: true, replies: REPLIES }, async (host) => {
        const agent = await host.createAgent('dcp-stats-domain');
        await host.prompt(agent, 'one');
        const stats = await host.command(agent, '/dcp stats');
        expect(stats?.result.text).toContain('\n\npersistent domain: current (single-process scope)\nsessions: 1\n');
        const facility = host.ctx.get('storageDomain') as { get(name: string): unknown };
        expect(facility.get('sessionctx_dcp_stats')).toBeDefined();
        expect(facility.get('dcp_stats')).toBeUndefined();
        expect(host.logs.filter((line) => line.text.includes('no storage domain'))).toEqual([]);
      }),
  },
  {
    name: 'a host without a storage domain still mounts the plugin, which keeps statistics in memory and says so',
    run: (kit, expect) =>
      withHost({ kit, replies: REPLIES }, async (host) => {
        expect(host.logs.map((line) => line.text)).toContain(
          'sessionctx/dsh-dcp: this host has no storage domain (@deepseek-ai/dsh-storage-domain); /dcp stats keeps its cross-session statistics in memory',
        );
        const agent = await host.createAgent('dcp-stats-memory');
        await host.prompt(agent, 'one');
        const stats = await host.command(agent, '/dcp stats');
        expect(stats?.result.text).toContain(
          '\n\npersistent domain: current (in memory only: this dsh host has no storage domain)\nsessions: 1\n',
        );
      }),
  },
];
