import { describe, expect, it } from 'vitest';
import {
  ALIAS_RE,
  BLOCK_REF_RE,
  CHECKPOINT_HEADER,
  COMPRESS_TOOL_NAME,
  CONTROL_MESSAGE_RE,
  DCP_COMMAND_NAME,
  DCP_MESSAGE_SOURCE,
  GUIDANCE_SECTION_NAME,
  GUIDANCE_SECTION_ORDER,
  MANUAL_TRIGGER_PREFIX,
  MARKER_LENIENT_RE,
  MARKER_REF_RE,
  MARKER_STRICT_RE,
  NUDGE_PREFIX,
  PURGE_HEADER,
  BUSY_TEXT,
  blockIdTag,
  controlText,
  dedupText,
  expansionCallId,
  expansionHeader,
  priorOpenTag,
  recompressCallId,
} from '../../../src/protocol/dcp/constants.js';

describe('§2 constants', () => {
  it('literal texts', () => {
    expect(JSON.stringify(DCP_MESSAGE_SOURCE)).toBe('{"kind":"plugin","plugin":"dsh-dcp"}');
    expect(blockIdTag('b3')).toBe('<dcp-message-id>b3</dcp-message-id>');
    expect(CHECKPOINT_HEADER).toBe('[Compressed conversation section]');
    expect(priorOpenTag('b2')).toBe('<dcp-prior ref="b2">');
    expect(dedupText('read')).toBe('[duplicate read output removed; a newer identical call supersedes it]');
    expect(PURGE_HEADER).toBe('[errored tool unit removed]');
    expect(expansionHeader('b1')).toBe('[Expanded block b1]');
    expect(controlText('sweep')).toBe('<dcp-control>sweep</dcp-control>');
    expect(MANUAL_TRIGGER_PREFIX).toBe('<compress triggered manually>');
    expect(NUDGE_PREFIX).toBe('DCP compression recommended:');
    expect(expansionCallId('b2')).toBe('dcp-expansion-b2');
    expect(recompressCallId('b3')).toBe('dcp-recompress-b3');
    expect([COMPRESS_TOOL_NAME, DCP_COMMAND_NAME, GUIDANCE_SECTION_NAME, GUIDANCE_SECTION_ORDER]).toEqual([
      'compress',
      'dcp',
      'dcp:guidance',
      190,
    ]);
    expect(BUSY_TEXT).toBe('compaction is busy: an unclosed bracket holds the session lock');
  });

  it('regexes behave as written in §2', () => {
    expect(MARKER_LENIENT_RE.exec('x <dcp-boundary ref="m12" anything />')?.[1]).toBe('m12');
    expect(MARKER_LENIENT_RE.test('<dcp-boundary ref="m12">')).toBe(false);
    expect(MARKER_STRICT_RE.test('<dcp-boundary ref="m0001" turn="1" step="0" />')).toBe(true);
    expect(MARKER_STRICT_RE.test('<dcp-boundary ref="m0001" turn="1" step="0"/>')).toBe(false);
    expect(MARKER_STRICT_RE.test(' <dcp-boundary ref="m0001" turn="1" step="0" />')).toBe(false);
    expect(ALIAS_RE.exec('alias m0003=s120')?.slice(1)).toEqual(['m0003', '120']);
    expect(BLOCK_REF_RE.test('b10')).toBe(true);
    expect(BLOCK_REF_RE.test('b0')).toBe(false);
    expect(MARKER_REF_RE.test('m0')).toBe(true);
    expect(MARKER_REF_RE.test('m')).toBe(false);
    expect(CONTROL_MESSAGE_RE.test('<dcp-control>expand b1</dcp-control>')).toBe(true);
    expect(CONTROL_MESSAGE_RE.test('<dcp-control>expand b1</dcp-control>\n')).toBe(false);
  });
});
