/** `sessionctx/dsh-dcp` as a dsh user meets it, on dsh 0.1.0-rc.6 (the cases of `../dsh-host/support/dcp-plugin-cases.mts`). */
import { describe, expect, it } from 'vitest';
import { PLUGIN_CASES } from '../dsh-host/support/dcp-plugin-cases.mts';
import { rc6Kit } from './support/dcp-kit-rc6.mts';

describe(`sessionctx/dsh-dcp on ${rc6Kit.label}`, () => {
  for (const pluginCase of PLUGIN_CASES) it(pluginCase.name, () => pluginCase.run(rc6Kit, expect));
});
