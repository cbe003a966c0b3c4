/**
 * sessionctx's DCP engine as a dsh plugin (docs/DSH-DCP.md): a cordis object plugin with dsh-dcp's `inject` minus the
 * token meter (the view meters each session itself), a schemastery `Config` over the `dcp` keys and an `apply` that
 * mounts `dcpPlugin()` through {@link DshPluginContext}, so the `compress` tool, the `/dcp` and `/dcp-compress`
 * commands, the `dcp:guidance` section and the pre-step listener are dsh's own registrations and every session DCP
 * touches gets a {@link DshSessionView}. `/dcp stats` folds long logs on a one-thread worker pool, started on first
 * use. Everything the plugin starts is disposed with its fiber.
 */
import { DcpConfigError } from '../protocol/dcp/config-error.js';
import { resolveDcpConfig } from '../protocol/dcp/config.js';
import type { SessionEvent } from '../protocol/events.js';
import { errorMessage } from '../protocol/errors.js';
import type { DcpPlugin } from '../main/engine/dcp/dcp-plugin.js';
import { dcpPlugin } from '../main/engine/dcp/dcp-plugin.js';
import type { DcpRuntime } from '../main/engine/dcp/dcp-runtime.js';
import type { CommandNotification, CommandNotifyLevel, HostSession } from '../main/host-api/host-api.js';
import { WorkerPool } from '../main/engine/pool/worker-pool.js';
import { refuseAnnouncedDshDcp, refuseMountedDshDcp } from './dsh-dcp-conflict.js';
import type { DshDcpConfig } from './dsh-dcp-config.js';
import { dshDcpConfigSchema } from './dsh-dcp-config.js';
import type { DshAgent, DshDcpContext, DshFiber, DshSession } from './dsh-dcp-host-shapes.js';
import { DshPluginContext } from './dsh-plugin-context.js';
import { pluginLogger } from './dsh-plugin-logger.js';
import { DshStorageSelector } from './dsh-plugin-storage.js';
import { SessionViews } from './session-views.js';

/** The plugin's name (its cordis runtime and logger name). */
export const DSH_DCP_PLUGIN_NAME = 'sessionctx-dcp';

/** The cordis service the plugin provides ({@link DshDcpService}); a second mount fails with cordis's own error. */
export const DSH_DCP_SERVICE = 'sessionctxDcp';

/** The plugin event a UI listens to for `/dcp` notices (`ctx.on('dcp/notify', (notice: DshDcpNotice) => …)`). */
export const DSH_DCP_NOTIFY_EVENT = 'dcp/notify';

/** The services the plugin waits for: dsh's session store, system prompt, tool runtime and command registry. */
export const DSH_DCP_INJECT: readonly string[] = Object.freeze(['sessions', 'systemPrompt', 'tools', 'commands']);

/** One `/dcp` notice (a sweep's outcome, an expansion's result), as the plugin event carries it. */
export interface DshDcpNotice extends CommandNotification {
  /** The agent whose command queued the work. */
  readonly agent: unknown;
  readonly sessionId: string;
}

/** What `ctx.sessionctxDcp` offers: the DCP runtime and the per-session views, for UIs and diagnostics. */
export interface DshDcpService {
  /** DCP's runtime (configuration, counters, pending controls), `undefined` when `enabled: false`. */
  readonly runtime: DcpRuntime | undefined;
  /** The view of a live dsh session once DCP has met it (read it; writes go to dsh's session). */
  view(session: unknown): HostSession | undefined;
  /** How many sessions have a view now. */
  readonly viewCount: number;
}

/** The one worker thread `/dcp stats` folds long logs on (DCP.md §19 D6). */
const STATS_POOL_SIZE = 1;

/** The log line of a notice: the command it came from, then its text. */
function noticeLine(notification: CommandNotification): string {
  return `/${notification.name}: ${notification.text}`;
}

/**
 * Mounts DCP in the host. Validates the configuration first (a `DcpConfigError` leaves nothing registered) and
 * refuses to run beside dsh-dcp (`DSH_DCP_CONFLICT`).
 */
function apply(ctx: unknown, config: DshDcpConfig = {}): void {
  const host = ctx as DshDcpContext;
  const resolved = resolveDcpConfig(config);
  const logger = pluginLogger(host.logger(DSH_DCP_PLUGIN_NAME));
  if (!resolved.config.enabled) {
    for (const warning of resolved.warnings) logger.warn(warning);
    logger.info('sessionctx/dsh-dcp: disabled by configuration (dcp.enabled: false)');
    host.provide(DSH_DCP_SERVICE, { runtime: undefined, view: () => undefined, viewCount: 0 } satisfies DshDcpService);
    return;
  }
  refuseMountedDshDcp(host.registry.values());
  host.on('internal/plugin', ((fiber: DshFiber) => refuseAnnouncedDshDcp(fiber)) as (...args: never[]) => unknown);

  // DCP's index of a session is built in the same pass as its view (docs/DSH-DCP.md §3), then adopted by the runtime.
  let dcp: DcpPlugin | undefined;
  const views = new SessionViews(
    (error: unknown, event: SessionEvent) =>
      logger.error(`sessionctx/dsh-dcp: a listener failed at s${event.seq} (${event.type}): ${errorMessage(error)}`, error),
    () => {
      const runtime = dcp?.runtime;
      if (runtime === undefined) return undefined;
      const index = runtime.createIndex();
      return { observe: (event, delta, view) => index.apply(event, delta, view), done: (view) => runtime.adoptIndex(view, index) };
    },
  );
  const storage = new DshStorageSelector(() => host.get('storageDomain'));
  if (!storage.persistent) {
    logger.info(
      'sessionctx/dsh-dcp: this host has no storage domain (@deepseek-ai/dsh-storage-domain); /dcp stats keeps its cross-session statistics in memory',
    );
  }
  const pool = new WorkerPool({ size: STATS_POOL_SIZE });
  const context = new DshPluginContext({
    ctx: host,
    config,
    logger,
    views,
    storage: () => storage.current(),
    notify: (notification: CommandNotification, agent: DshAgent) => {
      const level: CommandNotifyLevel = notification.level;
      logger[level](noticeLine(notification));
      const notice: DshDcpNotice = { ...notification, agent, sessionId: agent.session.id };
      host.emit(DSH_DCP_NOTIFY_EVENT, notice);
    },
  });
  const mounted = dcpPlugin({ config: resolved, fullLogTasks: { runner: pool } });
  dcp = mounted;
  host.effect(
    () => async () => {
      await context.close();
      views.clear();
      await pool.close();
    },
    'sessionctx-dcp',
  );
  host.on('session/event', ((session: DshSession, event: SessionEvent) => views.observe(session, event)) as (...args: never[]) => unknown);
  host.on('session/disposed', ((session: DshSession) => {
    const view = views.drop(session);
    if (view !== undefined) mounted.runtime?.forget(view);
  }) as (...args: never[]) => unknown);
  try {
    mounted.apply(context);
  } catch (error) {
    // dcpPlugin logs and skips an invalid configuration; anything else (a refused registration) fails the mount.
    if (error instanceof DcpConfigError) logger.error(error.message, error);
    throw error;
  }
  const service: DshDcpService = {
    get runtime() {
      return mounted.runtime;
    },
    view: (session: unknown) => views.peek(session as DshSession),
    get viewCount() {
      return views.size;
    },
  };
  host.provide(DSH_DCP_SERVICE, service);
}

/** The plugin as a dsh profile mounts it (`ctx.plugin(plugin, dcpConfig)`, or a Loader row). */
export const sessionctxDcpPlugin = Object.freeze({
  name: DSH_DCP_PLUGIN_NAME,
  inject: DSH_DCP_INJECT,
  Config: dshDcpConfigSchema,
  apply,
});
