/**
 * `sessionctx/dsh-dcp`: sessionctx's DCP engine as a dsh plugin, in place of dsh-dcp (docs/DSH-DCP.md). The default
 * export, and the module's own `name` / `inject` / `Config` / `apply`, are the cordis plugin a dsh profile mounts with
 * the `dcp` namespace as its configuration (`dsh/cordis.patch.yml`). Node ≥ 22 (dsh's own floor); no other entry of
 * sessionctx imports this one.
 */
import { sessionctxDcpPlugin } from './sessionctx-dcp-plugin.js';

export { DSH_DCP_INJECT as inject, DSH_DCP_NOTIFY_EVENT, DSH_DCP_PLUGIN_NAME as name, DSH_DCP_SERVICE } from './sessionctx-dcp-plugin.js';
export type { DshDcpNotice, DshDcpService } from './sessionctx-dcp-plugin.js';
export { dshDcpConfigSchema as Config } from './dsh-dcp-config.js';
export type { DshDcpConfig } from './dsh-dcp-config.js';
export { DshDcpError } from './dsh-dcp-error.js';
export type { DshDcpErrorCode } from './dsh-dcp-error.js';
export { DcpConfigError } from '../protocol/dcp/config-error.js';

/** The plugin's `apply` (the module namespace is a plugin too, as dsh-dcp's is). */
export const apply = sessionctxDcpPlugin.apply;

export default sessionctxDcpPlugin;
