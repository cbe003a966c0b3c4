/**
 * `sessionctx/dsh-dcp` as a dsh user meets it on dsh 0.1.0-rc.8 (`support/dcp-plugin-cases.mts`): its registrations
 * in dsh's own services, the refusal to run beside dsh-dcp in either order, configuration failures in DCP's words,
 * disposed sessions dropped, notices on the host's logger and a plugin event, statistics under its own storage
 * domain or in memory.
 */
import { describe, expect, it } from 'vitest';
import { rc8Kit } from './support/dcp-kit-rc8.mts';
import { PLUGIN_CASES } from './support/dcp-plugin-cases.mts';

describe(`sessionctx/dsh-dcp on ${rc8Kit.label}`, () => {
  for (const pluginCase of PLUGIN_CASES) it(pluginCase.name, () => pluginCase.run(rc8Kit, expect));
});
