/**
 * `sessionctx/dsh-dcp` on a long dsh session (docs/DSH-DCP.md §7): a 10,000-event log seeded into a real dsh
 * 0.1.0-rc.8 agent (DCP.md §19's corpus, DCP markers and native compactions included). The first turn continues the
 * marker numbering of the whole log and every request still equals a cold fold of it; `/dcp stats` folds the ledger
 * on the plugin's worker thread (the log is past `minEvents`), and the figures are the fold of the log itself. The
 * view's first fold of the log runs in slices: the host's event loop keeps turning during the first pre-step.
 */
import { describe, expect, it } from 'vitest';
import { foldLedger, generateDcpCorpus, historyReduction } from './support/dcp-dist.mts';
import { bootDcpHost } from './support/dcp-host.mts';
import { rc8Kit } from './support/dcp-kit-rc8.mts';

interface Service {
  readonly runtime: { readonly ledgers: { readonly runs: { pool: number; inThread: number; poolFailures: number } } };
}

/** `~N` after `label` in a stats block. */
function figure(text: string, label: string): number {
  const match = new RegExp(`^${label}: ~?(-?\\d+)`, 'm').exec(text);
  if (match === null) throw new Error(`no "${label}" in ${text}`);
  return Number(match[1]);
}

describe(`sessionctx/dsh-dcp on a long session (${rc8Kit.label})`, () => {
  it("continues the whole log's marker numbering, keeps every request a cold fold of the log, and folds /dcp stats on its worker", async () => {
    const seed = generateDcpCorpus(10_000);
    const maxMarker = Math.max(
      ...seed.flatMap((event) => {
        const text = (event.data as { content?: Array<{ text?: string }> }).content?.[0]?.text ?? '';
        const match = /^<dcp-boundary ref="m(\d+)"/.exec(text);
        return match === null ? [] : [Number(match[1])];
      }),
    );
    const host = await bootDcpHost({ kit: rc8Kit, dcp: {}, replies: [{ text: 'First answer.' }, { text: 'Second answer.' }] });
    try {
      const agent = await host.createAgent('long-session', { seed });
      // Macrotask turns of the host's event loop during each pre-step (a fold done in one call stack allows none).
      const turnsDuringPreStep: number[] = [];
      host.ctx.on(
        'agent/pre-step',
        (async (_payload: unknown, next: () => Promise<unknown>) => {
          let turns = 0;
          let running = true;
          const tick = (): void => {
            if (!running) return;
            turns += 1;
            setImmediate(tick);
          };
          setImmediate(tick);
          try {
            return await next();
          } finally {
            running = false;
            turnsDuringPreStep.push(turns);
          }
        }) as (...args: never[]) => unknown,
        { prepend: true },
      );
      await host.prompt(agent, 'What changed in the cache salt?');
      await host.prompt(agent, 'And the keys?');
      expect(host.agentErrors).toEqual([]);
      expect(host.mismatches).toEqual([]);
      expect(turnsDuringPreStep[0]).toBeGreaterThanOrEqual(2);
      const markers = host.requests.map((request) => JSON.stringify(request.messages.at(-2)));
      expect(markers[0]).toContain(`<dcp-boundary ref=\\"m${String(maxMarker + 1).padStart(4, '0')}\\" turn=`);
      expect(markers[1]).toContain(`<dcp-boundary ref=\\"m${String(maxMarker + 2).padStart(4, '0')}\\" turn=`);

      const stats = await host.command(agent, '/dcp stats');
      expect(stats?.result.kind).toBe('success');
      const service = host.ctx.get('sessionctxDcp') as Service;
      expect(service.runtime.ledgers.runs).toEqual({ pool: 1, inThread: 0, poolFailures: 0 });
      // The worker folded the log as it stood when the command ran: everything but the command's own `command/done`.
      const events = structuredClone(agent.session.events);
      expect(events.at(-1)?.type).toBe('command/done');
      const { ledger } = foldLedger(events.slice(0, -1) as never, []);
      const text = String(stats?.result.text);
      expect(figure(text, 'marker tokens')).toBe(ledger.markerTokens);
      expect(figure(text, 'history reduction')).toBe(historyReduction(ledger));
      expect(text).toMatch(new RegExp(`^blocks \\(hist/act\\): ${ledger.blockCount}/`, 'm'));
    } finally {
      await host.dispose();
    }
  });
});
