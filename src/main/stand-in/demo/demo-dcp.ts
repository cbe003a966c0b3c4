/**
 * The DCP part of the demo: a short scripted conversation run on the real host with the DCP plugin mounted — two
 * identical file reads (the older one is pruned by deduplication), a `compress` call over the first turns, then
 * `/dcp stats` and `/dcp show b1` — written into the demo corpus like any other session.
 */
import { dcpPlugin } from '../../engine/dcp/dcp-plugin.js';
import type { ScenarioRun } from '../scenario/run-scenario.js';
import { runScenario } from '../scenario/run-scenario.js';
import { parseScenario } from '../scenario/scenario.js';
import type { JsonlSessionStore } from '../../engine/store/jsonl-store.js';

/** The id of the DCP demo session. */
export const DEMO_DCP_ID = 'session-demo-dcp-cart-totals';

const CART_SOURCE = 'export function cartTotal(items) {\n  return items.reduce((sum, item) => sum + item.price * item.quantity, 0);\n}';

/** The scripted conversation (validated by the scenario parser, as `sessionctx script run` would). */
function demoDcpScenario(cwd: string): unknown {
  return {
    session: { id: DEMO_DCP_ID, cwd },
    // Demo-sized thresholds: the shipped defaults keep two recent turns and want 256 tokens of savings.
    config: { dcp: { compress: { retainRecentTurns: 1, minNetSavingsTokens: 1 } } },
    tools: [{ name: 'read_file', result: CART_SOURCE }],
    model: [
      { toolCalls: [{ name: 'read_file', args: { path: 'src/cart/total.ts' } }] },
      { text: 'cartTotal multiplies price by quantity per item and sums; there is no rounding, so totals can carry float noise.' },
      { toolCalls: [{ name: 'read_file', args: { path: 'src/cart/total.ts' } }] },
      { text: 'Same file as before: rounding belongs in cartTotal, in integer cents, not in the view.' },
      { text: 'Plan: store prices in cents, sum integers, format only at the edge. Three call sites need updating.' },
      {
        toolCalls: [
          {
            name: 'compress',
            args: {
              topic: 'cart total investigation',
              content: [
                {
                  startRef: 'm0001',
                  endRef: 'm0005',
                  summary:
                    'cartTotal (src/cart/total.ts) sums price × quantity with no rounding; decided: integer cents inside cartTotal, formatting only at the edge.',
                },
              ],
            },
          },
        ],
      },
      { text: 'Compressed the investigation; the plan stays visible.' },
    ],
    steps: [
      { prompt: 'Why do cart totals sometimes show 19.990000000000002?' },
      { prompt: 'Read it again and tell me where rounding should go.' },
      { prompt: 'Write down the plan.' },
      { prompt: 'Compress the investigation, we have the plan now.' },
      { command: '/dcp stats' },
      { command: '/dcp show b1' },
    ],
  };
}

/** Runs the DCP demo session into `store` and returns the run. */
export function runDemoDcp(store: JsonlSessionStore, cwd: string): Promise<ScenarioRun> {
  return runScenario(parseScenario(demoDcpScenario(cwd)), store, { plugins: [dcpPlugin()] });
}
