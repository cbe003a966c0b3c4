/** The refusal to run beside dsh-dcp (docs/DSH-DCP.md §6): the registry check, the fiber announcement and dsh's duplicates. */
import { describe, expect, it } from 'vitest';
import { registerOwn, refuseAnnouncedDshDcp, refuseMountedDshDcp } from '../../src/dsh-dcp/dsh-dcp-conflict.js';
import { DshDcpError } from '../../src/dsh-dcp/dsh-dcp-error.js';

const runtime = (name: string | undefined, fibers: number) => ({ name, fibers: Array.from({ length: fibers }, () => ({})) });

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('refusing dsh-dcp', () => {
  it('a live dsh-dcp runtime in the registry is refused by name; a disposed one or another plugin is not', () => {
    const error = thrown(() => refuseMountedDshDcp([runtime('agent-loop', 1), runtime('dsh-dcp', 1)]));
    expect(error).toBeInstanceOf(DshDcpError);
    expect(error).toMatchObject({ code: 'DSH_DCP_CONFLICT', name: 'DshDcpError' });
    expect((error as Error).message).toBe(
      "sessionctx/dsh-dcp cannot run beside dsh-dcp (@chiro2001/dsh-dcp): dsh-dcp is already mounted in this host; the two are DCP engines over the same log; disable dsh-dcp's row in the profile (sessionctx's dsh/cordis.patch.yml does) or do not mount sessionctx/dsh-dcp",
    );
    expect(thrown(() => refuseMountedDshDcp([runtime('@chiro2001/dsh-dcp', 2)]))).toBeInstanceOf(DshDcpError);
    expect(thrown(() => refuseMountedDshDcp([runtime('dsh-dcp', 0), runtime(undefined, 3), runtime('sessionctx-dcp', 1)]))).toBeUndefined();
  });

  it('an announced dsh-dcp fiber is refused; its disposal notice and other fibers pass', () => {
    expect((thrown(() => refuseAnnouncedDshDcp({ runtime: runtime('dsh-dcp', 1) })) as Error).message).toContain(
      'dsh-dcp is being mounted after sessionctx/dsh-dcp',
    );
    expect(thrown(() => refuseAnnouncedDshDcp({ runtime: runtime('dsh-dcp', 1), uid: null } as never))).toBeUndefined();
    expect(thrown(() => refuseAnnouncedDshDcp({ runtime: null }))).toBeUndefined();
    expect(thrown(() => refuseAnnouncedDshDcp({ runtime: runtime('dsh-tools', 1) }))).toBeUndefined();
  });

  it("dsh's duplicate refusal of a shared name becomes the refusal, with dsh's error as the cause; other failures pass through", () => {
    const duplicate = new Error(
      'tool "compress" is already registered (for a per-agent variant, register through that agent\'s `agent.ctx` instead)',
    );
    const error = thrown(() =>
      registerOwn('tool', 'compress', () => {
        throw duplicate;
      }),
    );
    expect(error).toMatchObject({ code: 'DSH_DCP_CONFLICT', cause: duplicate });
    expect((error as Error).message).toContain('the tool "compress" is already registered');
    const other = new TypeError('tool "compress" must declare output { schema, render, presentationMeta? }');
    expect(
      thrown(() =>
        registerOwn('tool', 'compress', () => {
          throw other;
        }),
      ),
    ).toBe(other);
    const unrelated = new Error('command "hello" is already registered');
    expect(
      thrown(() =>
        registerOwn('command', 'hello', () => {
          throw unrelated;
        }),
      ),
    ).toBe(unrelated);
    expect(registerOwn('section', 'dcp:guidance', () => 7)).toBe(7);
  });
});
