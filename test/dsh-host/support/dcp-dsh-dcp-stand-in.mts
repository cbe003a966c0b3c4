/**
 * A stand-in for dsh-dcp (`@chiro2001/dsh-dcp`) in the refusal tests: a plugin with dsh-dcp's name and the three
 * registrations both DCP engines make — the `dcp:guidance` system section, the `compress` tool and the `dcp`
 * command — and nothing else (dsh-dcp itself is not on the npm registry). Written for these tests.
 */
import type { KitContext, KitPlugin } from './dcp-kit.mts';

interface Registries {
  readonly systemPrompt: { section(section: unknown): () => void };
  readonly tools: { register(definition: unknown): () => void };
  readonly commands: { register(definition: unknown): () => void };
}

/** Registers what dsh-dcp registers, under the name given (dsh-dcp's own by default). */
export function dshDcpStandIn(
  name = 'dsh-dcp',
  registrations: ReadonlyArray<'section' | 'tool' | 'command'> = ['section', 'tool', 'command'],
): KitPlugin {
  return {
    name,
    inject: ['sessions', 'systemPrompt', 'tools', 'commands'],
    apply(ctx: KitContext) {
      const services = ctx as unknown as Registries;
      if (registrations.includes('section'))
        services.systemPrompt.section({ name: 'dcp:guidance', order: 190, text: '## Dynamic Context Pruning (DCP)' });
      if (registrations.includes('tool')) {
        services.tools.register({
          name: 'compress',
          description: 'Compress one closed conversation range into a summary checkpoint.',
          parameters: { type: 'object' },
          output: { schema: { type: 'string' }, render: (_args: unknown, value: unknown) => [{ type: 'text', text: String(value) }] },
          execute: async () => 'compressed',
        });
      }
      if (registrations.includes('command')) {
        services.commands.register({
          name: 'dcp',
          description: 'DCP context management',
          handler: () => ({ kind: 'success', text: 'help' }),
        });
      }
    },
  };
}
