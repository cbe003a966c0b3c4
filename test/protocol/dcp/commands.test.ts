import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DCP_DSH } from '../../support/fixtures.js';
import { parseDcpCommand, parseDcpCompressCommand } from '../../../src/protocol/dcp/command-parser.js';
import {
  COMPRESSION_DISABLED_TEXT,
  COMPRESS_TRIGGERED_TEXT,
  DECOMPRESS_NOTE_TEXT,
  HELP_TEXT,
  SWEEP_SCHEDULED_TEXT,
  blockDoesNotExistText,
  controlRejectedNotice,
  expansionNotice,
  expansionScheduledText,
  manualStatusText,
  manualSwitchedText,
  manualUsageText,
  recompressionNotice,
  recompressionScheduledText,
  sweepNotice,
} from '../../../src/protocol/dcp/command-texts.js';
import { manualStateFromCommand, normalizeCommandArgs } from '../../../src/protocol/dcp/manual-replay.js';
import { buildTriggerText, isManualTriggerMessage, triggerMessageInput } from '../../../src/protocol/dcp/trigger-message.js';
import {
  controlMessageInput,
  formatControlText,
  parseControlBody,
  parseControlText,
  recognizeControl,
} from '../../../src/protocol/dcp/control-message.js';
import { DCP_COMMAND_HINT, DCP_COMPRESS_COMMAND_NAME } from '../../../src/protocol/dcp/constants.js';

// Copied from DCP.md §11.3 and §11.2.
const HELP_FROM_SPEC = [
  'DCP commands:',
  '/dcp help                              show this help',
  '/dcp context                           show the current context breakdown',
  '/dcp stats                             show pruning statistics (this session and all sessions)',
  '/dcp manual [on|off|status]            switch or show manual mode',
  '/dcp compress [focus]                  ask the model to compress closed ranges now',
  '/dcp sweep                             run automatic pruning now (no model request)',
  '/dcp show <bN> [--raw]                 show a compressed block (--raw: original messages)',
  '/dcp decompress <bN> [--into-context]  show a block; --into-context expands it into the context',
  '/dcp recompress <bN>                   compress an expanded block again',
  'Range compression itself is done by the model through the compress tool.',
].join('\n');
/**
 * The trigger dsh-dcp writes (DCP.md §11.2 follows it): read from test/fixtures/dcp-dsh/s10-trigger-sweep, where
 * `/dcp compress keep the config facts` queued it with that focus.
 */
const FIXTURE_TRIGGER = (() => {
  const recorded = JSON.parse(readFileSync(join(DCP_DSH, 's10-trigger-sweep.dsh.json'), 'utf8')) as {
    events: Array<{ type: string; data: { content?: Array<{ text?: string }> } }>;
  };
  const texts = recorded.events.filter((event) => event.type === 'user/message').map((event) => event.data.content?.[0]?.text ?? '');
  return texts.find((text) => text.startsWith('<compress triggered manually>')) as string;
})();
const FIXTURE_FOCUS_SUFFIX = '\n\nAdditional user focus:\nkeep the config facts';
const TRIGGER_FROM_SPEC = FIXTURE_TRIGGER.slice(0, FIXTURE_TRIGGER.length - FIXTURE_FOCUS_SUFFIX.length);

describe('§18 item 66: command parsing and texts', () => {
  it('the help block matches §11.3; empty args and help give it', () => {
    expect(HELP_TEXT).toBe(HELP_FROM_SPEC);
    expect(parseDcpCommand('')).toEqual({ kind: 'help' });
    expect(parseDcpCommand('   ')).toEqual({ kind: 'help' });
    expect(parseDcpCommand('HELP')).toEqual({ kind: 'help' });
  });

  it('unknown sub-command → the exact error', () => {
    expect(parseDcpCommand('frobnicate now')).toEqual({
      kind: 'unknown-subcommand',
      text: 'Unknown /dcp subcommand "frobnicate". Use /dcp help.',
    });
  });

  it('/dcp show and /dcp show x → usage errors; refs and flags are lowercased', () => {
    expect(parseDcpCommand('show')).toEqual({ kind: 'usage-error', text: 'Usage: /dcp show <bN> [--raw]' });
    expect(parseDcpCommand('show x')).toEqual({ kind: 'usage-error', text: 'Usage: /dcp show <bN> [--raw]' });
    expect(parseDcpCommand('show b0')).toEqual({ kind: 'usage-error', text: 'Usage: /dcp show <bN> [--raw]' });
    expect(parseDcpCommand('show b1 --full')).toEqual({ kind: 'usage-error', text: 'Usage: /dcp show <bN> [--raw]' });
    expect(parseDcpCommand('show B9')).toEqual({ kind: 'show', blockRef: 'b9', raw: false });
    expect(parseDcpCommand('  SHOW   b2   --RAW ')).toEqual({ kind: 'show', blockRef: 'b2', raw: true });
  });

  it('decompress and recompress', () => {
    expect(parseDcpCommand('decompress b1')).toEqual({ kind: 'decompress', blockRef: 'b1', intoContext: false });
    expect(parseDcpCommand('decompress b1 --into-context')).toEqual({ kind: 'decompress', blockRef: 'b1', intoContext: true });
    expect(parseDcpCommand('decompress b1 --raw')).toEqual({ kind: 'usage-error', text: 'Usage: /dcp decompress <bN> [--into-context]' });
    expect(parseDcpCommand('decompress')).toEqual({ kind: 'usage-error', text: 'Usage: /dcp decompress <bN> [--into-context]' });
    expect(parseDcpCommand('recompress b3')).toEqual({ kind: 'recompress', blockRef: 'b3' });
    expect(parseDcpCommand('recompress b3 --into-context')).toEqual({ kind: 'usage-error', text: 'Usage: /dcp recompress <bN>' });
    expect(parseDcpCommand('recompress m0001')).toEqual({ kind: 'usage-error', text: 'Usage: /dcp recompress <bN>' });
  });

  it('manual: on/off/status/usage on norm(args)', () => {
    expect(parseDcpCommand('manual on')).toEqual({ kind: 'manual-set', on: true });
    expect(parseDcpCommand('MANUAL   On')).toEqual({ kind: 'manual-set', on: true });
    expect(parseDcpCommand('manual off')).toEqual({ kind: 'manual-set', on: false });
    // A bare `/dcp manual` answers with the usage line, as dsh-dcp does (test/fixtures/dcp-dsh/s9, last command).
    expect(parseDcpCommand('manual')).toEqual({ kind: 'manual-usage' });
    expect(parseDcpCommand('manual status')).toEqual({ kind: 'manual-status' });
    expect(parseDcpCommand('manual maybe')).toEqual({ kind: 'manual-usage' });
    expect(parseDcpCommand('manual on please')).toEqual({ kind: 'manual-usage' });
    expect(manualStatusText(false)).toBe('Manual mode is OFF.');
    expect(manualStatusText(true)).toBe('Manual mode is ON.');
    expect(manualSwitchedText(true)).toBe('Manual mode is now ON.');
    expect(manualSwitchedText(false)).toBe('Manual mode is now OFF.');
    expect(manualUsageText(true)).toBe('Usage: /dcp manual [on|off|status]. Current: ON.');
    expect(manualUsageText(false)).toBe('Usage: /dcp manual [on|off|status]. Current: OFF.');
  });

  it('compress with and without focus; dcp-compress behaves the same', () => {
    expect(parseDcpCommand('compress')).toEqual({ kind: 'compress' });
    expect(parseDcpCommand('compress  Keep the  API notes ')).toEqual({ kind: 'compress', focus: 'Keep the  API notes' });
    expect(parseDcpCompressCommand(' Keep the  API notes ')).toEqual({ kind: 'compress', focus: 'Keep the  API notes' });
    expect(parseDcpCompressCommand('')).toEqual({ kind: 'compress' });
    expect(DCP_COMPRESS_COMMAND_NAME).toBe('dcp-compress');
    expect(DCP_COMMAND_HINT).toBe('help|context|stats|manual|compress|sweep|show|decompress|recompress');
    expect(COMPRESS_TRIGGERED_TEXT).toBe('Compression triggered; the model will select closed ranges in the next turn.');
    expect(COMPRESSION_DISABLED_TEXT).toBe('Compression is disabled by configuration.');
  });

  it('other fixed texts', () => {
    expect(parseDcpCommand('context')).toEqual({ kind: 'context' });
    expect(parseDcpCommand('stats')).toEqual({ kind: 'stats' });
    expect(parseDcpCommand('sweep')).toEqual({ kind: 'sweep' });
    expect(SWEEP_SCHEDULED_TEXT).toBe('Sweep scheduled in a control turn (no model request).');
    expect(blockDoesNotExistText('b9')).toBe('Compression b9 does not exist.');
    expect(DECOMPRESS_NOTE_TEXT).toBe('Note: model context is unchanged (raw show only). Use --into-context to expand.');
    expect(expansionScheduledText('b1')).toBe('b1 will be expanded into quoted context in a control turn.');
    expect(recompressionScheduledText('b1')).toBe('b1 will be re-compressed in a control turn.');
  });

  it('control-turn notices (§11.6)', () => {
    expect(controlRejectedNotice('expand b1')).toBe('DCP: expand b1 was not run because the turn was rejected.');
    expect(sweepNotice({ kind: 'pruned', deduplicated: 2, purged: 1, tokensSaved: 340 })).toBe(
      'DCP sweep: pruned 2 duplicate output(s) and 1 errored unit(s), ~340 tokens.',
    );
    expect(sweepNotice({ kind: 'nothing' })).toBe('DCP sweep: nothing to prune.');
    expect(sweepNotice({ kind: 'pruned', deduplicated: 0, purged: 0, tokensSaved: 0 })).toBe('DCP sweep: nothing to prune.');
    expect(sweepNotice({ kind: 'busy' })).toBe('DCP sweep skipped: compaction is busy.');
    expect(expansionNotice('b1', { ok: true, newRef: 'b2' })).toBe('DCP: b1 expanded into b2.');
    expect(expansionNotice('b1', { ok: false, reason: 'b1 is not an active summary block' })).toBe(
      'DCP: b1 was not expanded: b1 is not an active summary block',
    );
    expect(recompressionNotice('b1', { ok: true, newRef: 'b3' })).toBe('DCP: b1 re-compressed into b3.');
    expect(recompressionNotice('b1', { ok: false, reason: 'x' })).toBe('DCP: b1 was not re-compressed: x');
  });
});

describe('§18 item 53: manual replay on norm(args)', () => {
  it('norm trims, lowercases and collapses whitespace', () => {
    expect(normalizeCommandArgs(' manual on ')).toBe('manual on');
    expect(normalizeCommandArgs('MANUAL   On')).toBe('manual on');
    expect(normalizeCommandArgs('\tManual\n OFF ')).toBe('manual off');
  });

  it("' manual on ' success → on; 'MANUAL   On' success → on; manual off success → off; error pairs change nothing", () => {
    expect(manualStateFromCommand('dcp', ' manual on ', 'success')).toBe(true);
    expect(manualStateFromCommand('dcp', 'MANUAL   On', 'success')).toBe(true);
    expect(manualStateFromCommand('dcp', 'manual off', 'success')).toBe(false);
    expect(manualStateFromCommand('dcp', 'manual on', 'error')).toBeUndefined();
    expect(manualStateFromCommand('dcp', 'manual status', 'success')).toBeUndefined();
    expect(manualStateFromCommand('dcp-compress', 'manual on', 'success')).toBeUndefined();
    expect(manualStateFromCommand('dcp', undefined, 'success')).toBeUndefined();
  });
});

describe('manual trigger (§11.2, §11.4)', () => {
  it('the trigger text matches §11.2; a focus is appended after a blank line', () => {
    expect(buildTriggerText()).toBe(TRIGGER_FROM_SPEC);
    expect(buildTriggerText('  ')).toBe(TRIGGER_FROM_SPEC);
    expect(FIXTURE_TRIGGER.endsWith(FIXTURE_FOCUS_SUFFIX)).toBe(true);
    expect(buildTriggerText('keep the config facts')).toBe(FIXTURE_TRIGGER);
    expect(buildTriggerText('auth module')).toBe(`${TRIGGER_FROM_SPEC}\n\nAdditional user focus:\nauth module`);
    expect(JSON.stringify(triggerMessageInput().source)).toBe('{"kind":"plugin","plugin":"dsh-dcp"}');
  });

  it('recognition: DCP-sourced, first text block starts with the prefix', () => {
    const trigger = {
      source: { kind: 'plugin', plugin: 'dsh-dcp', commandId: 'k' },
      content: [{ type: 'text', text: buildTriggerText() }],
    };
    expect(isManualTriggerMessage(trigger)).toBe(true);
    expect(isManualTriggerMessage({ ...trigger, source: { kind: 'user' } })).toBe(false);
    expect(isManualTriggerMessage({ ...trigger, content: [{ type: 'text', text: `x ${buildTriggerText()}` }] })).toBe(false);
  });
});

describe('control messages (§2, §11.5)', () => {
  it('format and parse <dcp-control>BODY</dcp-control>', () => {
    expect(formatControlText({ kind: 'sweep' })).toBe('<dcp-control>sweep</dcp-control>');
    expect(formatControlText({ kind: 'expand', blockRef: 'b2' })).toBe('<dcp-control>expand b2</dcp-control>');
    expect(formatControlText({ kind: 'recompress', blockRef: 'b10' })).toBe('<dcp-control>recompress b10</dcp-control>');
    expect(parseControlText('<dcp-control>expand b2</dcp-control>')).toEqual({ kind: 'expand', blockRef: 'b2' });
    expect(parseControlBody('recompress b7')).toEqual({ kind: 'recompress', blockRef: 'b7' });
    for (const bad of [
      '<dcp-control>sweep',
      '<dcp-control>expand b0</dcp-control>',
      ' <dcp-control>sweep</dcp-control>',
      '<dcp-control>Sweep</dcp-control>',
      '<dcp-control>expand  b1</dcp-control>',
    ]) {
      expect(parseControlText(bad)).toBeUndefined();
    }
  });

  it('valid only from the DCP source with a pending commandId and exactly one text block', () => {
    const pending = (id: string) => id === 'cmd-1';
    const control = { ...controlMessageInput({ kind: 'sweep' }), source: { kind: 'plugin', plugin: 'dsh-dcp', commandId: 'cmd-1' } };
    expect(recognizeControl(control, pending)).toEqual({ commandId: 'cmd-1', body: { kind: 'sweep' } });
    expect(recognizeControl({ ...control, source: { kind: 'user' } }, pending)).toBeUndefined();
    expect(recognizeControl({ ...control, source: { kind: 'plugin', plugin: 'dsh-dcp', commandId: 'other' } }, pending)).toBeUndefined();
    expect(recognizeControl({ ...control, source: { kind: 'plugin', plugin: 'dsh-dcp' } }, pending)).toBeUndefined();
    expect(recognizeControl({ ...control, content: [...control.content, { type: 'text', text: 'more' }] }, pending)).toBeUndefined();
  });
});
