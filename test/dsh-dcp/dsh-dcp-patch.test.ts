/**
 * The dsh profile patch of `sessionctx/dsh-dcp` (`dsh/dsh-dcp.cordis.patch.yml`, docs/DSH-DCP.md §6): it turns off
 * dsh-dcp's row, mounts the package entry that exists, with the plugin's own `inject`, and ships in the tarball.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DSH_DCP_INJECT } from '../../src/dsh-dcp/sessionctx-dcp-plugin.js';
import { REPO_ROOT } from '../support/fixtures.js';

describe('dsh/dsh-dcp.cordis.patch.yml', () => {
  const patch = readFileSync(join(REPO_ROOT, 'dsh', 'dsh-dcp.cordis.patch.yml'), 'utf8');
  const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    exports: Record<string, unknown>;
    files: string[];
  };

  it("disables dsh-dcp's row (id dcp) and inserts sessionctx/dsh-dcp with the plugin's inject", () => {
    expect(patch).toMatch(/^- id: dcp\n {2}disabled: true$/m);
    expect(patch).toContain("      name: 'sessionctx/dsh-dcp'\n");
    expect(patch).toContain(`      inject: [${DSH_DCP_INJECT.join(', ')}]\n`);
  });

  it('names an entry the package exports, and the tarball carries the patch', () => {
    expect(Object.keys(manifest.exports)).toContain('./dsh-dcp');
    expect(manifest.files).toContain('dsh/dsh-dcp.cordis.patch.yml');
  });
});
