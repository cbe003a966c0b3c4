/** The command adapter's argument and follow-up rules (docs/DSH-DCP.md §4, HOST.md §9). */
import { describe, expect, it } from 'vitest';
import { commandArgs, stampCommandId } from '../../src/dsh-dcp/dsh-command-adapter.js';
import { createUserMessage } from '../../src/protocol/user-message.js';

describe('dsh commands', () => {
  it("hands the handler dsh's rawInput without its separator, undefined when nothing follows the name", () => {
    expect(commandArgs('')).toBeUndefined();
    expect(commandArgs(' help')).toBe('help');
    expect(commandArgs('\tmanual  ON ')).toBe('manual  ON ');
    expect(commandArgs('   ')).toBe('');
  });

  it("stamps the command's id into a plugin source (same id, key order kept) and leaves other messages as they are", () => {
    const plugin = createUserMessage({
      content: [{ type: 'text', text: '<dcp-control>sweep</dcp-control>' }],
      source: { kind: 'plugin', plugin: 'dsh-dcp' },
    });
    const stamped = stampCommandId(plugin, 'cmd-1234abcd-2');
    expect(stamped.id).toBe(plugin.id);
    expect(JSON.stringify(stamped)).toBe(
      JSON.stringify({ ...plugin, source: { kind: 'plugin', plugin: 'dsh-dcp', commandId: 'cmd-1234abcd-2' } }),
    );
    expect(Object.isFrozen(stamped) && Object.isFrozen(stamped.source)).toBe(true);
    const human = createUserMessage({ content: [{ type: 'text', text: 'hi' }], source: { kind: 'user' } });
    expect(stampCommandId(human, 'cmd-1')).toBe(human);
  });
});
