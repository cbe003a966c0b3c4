// HOST.md §1: the plugin context — hooks with prepend, tools, sections, frozen config, logger, dispose order.
import { describe, expect, it } from 'vitest';
import { createTestHarness } from '../../../../src/main/stand-in/host/test-harness.js';
import type { PluginContext } from '../../../../src/main/host-api/host-api.js';

describe('plugin context', () => {
  it('gives each plugin its frozen configuration by namespace, or undefined', () => {
    let captured: PluginContext | undefined;
    const config = { dcp: { enabled: true, list: [1] } };
    createTestHarness({
      config,
      plugins: [
        {
          name: 'p',
          apply: (context) => {
            captured = context;
          },
        },
      ],
    });
    const value = captured!.config<{ enabled: boolean; list: number[] }>('dcp')!;
    expect(value).toEqual({ enabled: true, list: [1] });
    expect(Object.isFrozen(value)).toBe(true);
    expect(Object.isFrozen(value.list)).toBe(true);
    expect(Object.isFrozen(config.dcp)).toBe(false);
    expect(captured!.config('missing')).toBeUndefined();
  });

  it('logs through the host logger, never into the session log', () => {
    const harness = createTestHarness({ plugins: [{ name: 'p', apply: (context) => context.logger.warn('careful', { n: 1 }) }] });
    expect(harness.logs).toEqual([{ level: 'warn', text: 'careful', detail: { n: 1 } }]);
    expect(harness.session.events).toHaveLength(0);
  });

  it('registers tools (duplicates refused) and runs dispose functions in reverse order', async () => {
    const order: string[] = [];
    const harness = createTestHarness({
      plugins: [
        {
          name: 'p',
          apply: (context) => {
            context.registerTool({ name: 't', description: 'd', parameters: {}, execute: () => 'x' });
            expect(() => context.registerTool({ name: 't', description: 'd', parameters: {}, execute: () => 'x' })).toThrow(
              'tool "t" is already registered',
            );
            context.dispose(() => {
              order.push('first');
            });
            context.dispose(async () => {
              order.push('second');
            });
          },
        },
      ],
    });
    expect(harness.agent.tools.map((tool) => tool.name)).toEqual(['t']);
    await harness.agent.dispose();
    expect(order).toEqual(['second', 'first']);
  });

  it('on() returns an unsubscribe function', async () => {
    let calls = 0;
    const harness = createTestHarness({ script: [{ text: 'a' }, { text: 'b' }] });
    const off = harness.agent.on('agent/pre-step', (_payload, next) => {
      calls += 1;
      return next();
    });
    harness.prompt('1');
    await harness.runUntilIdle();
    off();
    harness.prompt('2');
    await harness.runUntilIdle();
    expect(calls).toBe(1);
  });
});
