import { describe, expect, it } from 'vitest';
import { MARKER_STRICT_RE } from '../../../src/protocol/dcp/constants.js';
import { buildMarkerText, manualLineFor, markerMessageInput } from '../../../src/protocol/dcp/marker-text.js';
import { parseAliasLine, parseStrictMarkerLine, recognizeMarker } from '../../../src/protocol/dcp/marker-recognition.js';
import { blockNumber, formatBlockRef, formatMarkerRef, markerNumber, parseBoundaryRef } from '../../../src/protocol/dcp/refs.js';

const dcpMessage = (text: string, extra: Record<string, unknown> = {}) => ({
  source: { kind: 'plugin', plugin: 'dsh-dcp', ...extra },
  content: [{ type: 'text', text }],
  role: 'user',
  id: 'x',
});

describe('DCP.md §18 item 1: marker, strict regex, alias', () => {
  it('builds the exact marker line for m0007, turn 4, step 2 and parses it with the strict regex', () => {
    const text = buildMarkerText({ ref: 'm0007', turn: 4, step: 2 });
    expect(text).toBe('<dcp-boundary ref="m0007" turn="4" step="2" />');
    expect(MARKER_STRICT_RE.test(text)).toBe(true);
    expect(parseStrictMarkerLine(text)).toEqual({ ref: 'm0007', turn: 4, step: 2 });
  });

  it('a block id tag is no marker', () => {
    expect(parseStrictMarkerLine('<dcp-message-id>b1</dcp-message-id>')).toBeUndefined();
    expect(recognizeMarker(dcpMessage('<dcp-message-id>b1</dcp-message-id>'))).toBeUndefined();
  });

  it('alias (m0007, 42) → alias m0007=s42, and the line parses back', () => {
    const text = buildMarkerText({ ref: 'm0008', turn: 1, step: 0, aliases: [{ ref: 'm0007', seq: 42 }] });
    expect(text).toBe('<dcp-boundary ref="m0008" turn="1" step="0" />\nalias m0007=s42');
    expect(parseAliasLine('alias m0007=s42')).toEqual({ ref: 'm0007', seq: 42 });
    expect(parseAliasLine('  alias m0007=s42  ')).toEqual({ ref: 'm0007', seq: 42 });
    expect(parseAliasLine('alias m0007=42')).toBeUndefined();
    expect(parseAliasLine('alias b1=s42')).toBeUndefined();
  });
});

describe('§4.2 layout and §4.6 manual line', () => {
  it('orders marker line, manual line, nudge line, alias lines, joined by \\n', () => {
    const text = buildMarkerText({
      ref: 'm0012',
      turn: 5,
      step: 0,
      manualLine: 'DCP manual mode: on. Call compress only in a turn that starts with <compress triggered manually>.',
      nudgeLine: 'DCP compression recommended: context is at 90% of the model window. Compress a closed range to free space.',
      aliases: [
        { ref: 'm0001', seq: 7 },
        { ref: 'm0003', seq: 120 },
      ],
    });
    expect(text.split('\n')).toEqual([
      '<dcp-boundary ref="m0012" turn="5" step="0" />',
      'DCP manual mode: on. Call compress only in a turn that starts with <compress triggered manually>.',
      'DCP compression recommended: context is at 90% of the model window. Compress a closed range to free space.',
      'alias m0001=s7',
      'alias m0003=s120',
    ]);
  });

  it('manual line only at the first pre-step (step 1) and only when the state differs from the default', () => {
    expect(manualLineFor(1, true, false)).toBe(
      'DCP manual mode: on. Call compress only in a turn that starts with <compress triggered manually>.',
    );
    expect(manualLineFor(1, false, true)).toBe('DCP manual mode: off. Compress closed ranges when useful.');
    expect(manualLineFor(2, true, false)).toBeUndefined();
    expect(manualLineFor(1, true, true)).toBeUndefined();
    expect(manualLineFor(1, false, false)).toBeUndefined();
  });

  it("the marker message input has one text block, then the DCP source (dsh-dcp's key order)", () => {
    const input = markerMessageInput('<dcp-boundary ref="m0001" turn="1" step="1" />');
    // test/fixtures/dcp-dsh/s1-markers: dsh-dcp writes {content, source, role, id}.
    expect(JSON.stringify(input)).toBe(
      '{"content":[{"type":"text","text":"<dcp-boundary ref=\\"m0001\\" turn=\\"1\\" step=\\"1\\" />"}],"source":{"kind":"plugin","plugin":"dsh-dcp"}}',
    );
  });
});

describe('§18 item 7 (numbering and formatting)', () => {
  it('pads to at least four digits with no upper limit', () => {
    expect(formatMarkerRef(1)).toBe('m0001');
    expect(formatMarkerRef(42)).toBe('m0042');
    expect(formatMarkerRef(9999)).toBe('m9999');
    expect(formatMarkerRef(10000)).toBe('m10000');
    expect(formatMarkerRef(1234567)).toBe('m1234567');
    expect(() => formatMarkerRef(0)).toThrow(RangeError);
    expect(() => formatMarkerRef(1.5)).toThrow(RangeError);
  });

  it('m10000 is recognised by replay with its number, so the next one is m10001', () => {
    const marker = recognizeMarker(dcpMessage('<dcp-boundary ref="m10000" turn="900" step="3" />'));
    expect(marker).toEqual({ ref: 'm10000', number: 10000, hasNudge: false, aliases: [] });
    expect(formatMarkerRef(marker!.number + 1)).toBe('m10001');
    expect(markerNumber('m0009')).toBe(9);
    expect(markerNumber('m99999999999999999999')).toBeUndefined();
  });

  it('block refs bN: format and parse', () => {
    expect(formatBlockRef(1)).toBe('b1');
    expect(formatBlockRef(12)).toBe('b12');
    expect(blockNumber('b12')).toBe(12);
    expect(blockNumber('b0')).toBeUndefined();
    expect(blockNumber('b01')).toBeUndefined();
    expect(blockNumber('B1')).toBeUndefined();
    expect(() => formatBlockRef(0)).toThrow(RangeError);
  });

  it('parseBoundaryRef: only ^m\\d+$ and ^b[1-9]\\d*$ are boundary refs (§5.2 rule 1)', () => {
    expect(parseBoundaryRef('m0001')).toEqual({ kind: 'marker', ref: 'm0001', number: 1 });
    expect(parseBoundaryRef('b3')).toEqual({ kind: 'block', ref: 'b3', number: 3 });
    for (const bad of ['', 'x', 'm', 'b0', 'm1 ', ' b1', 'b-1', 's12']) expect(parseBoundaryRef(bad)).toBeUndefined();
  });
});

describe('§18 item 10 (recognition): only DCP-sourced messages, first line of content[0]', () => {
  const quote = '<dcp-boundary ref="m0099" turn="1" step="0" />';

  it('a human message quoting a marker is no marker', () => {
    expect(recognizeMarker({ source: { kind: 'user' }, content: [{ type: 'text', text: quote }], role: 'user', id: 'u' })).toBeUndefined();
  });

  it('a verbatim copy inside a checkpoint is no marker', () => {
    const checkpoint = {
      source: { kind: 'plugin', plugin: 'compact', compactionId: 'c' },
      content: [{ type: 'text', text: `${quote}\nDCP compression recommended: x` }],
    };
    expect(recognizeMarker(checkpoint)).toBeUndefined();
  });

  it('a DCP-sourced message with the marker not on the first line, or not in content[0], is no marker', () => {
    expect(recognizeMarker(dcpMessage(`hello\n${quote}`))).toBeUndefined();
    expect(
      recognizeMarker({
        source: { kind: 'plugin', plugin: 'dsh-dcp' },
        content: [
          { type: 'text', text: 'x' },
          { type: 'text', text: quote },
        ],
      }),
    ).toBeUndefined();
    expect(recognizeMarker({ source: { kind: 'plugin', plugin: 'dsh-dcp' }, content: [] })).toBeUndefined();
    expect(recognizeMarker(null)).toBeUndefined();
  });

  it('the lenient regex reads dsh-dcp variants (extra attributes, surrounding text on the first line)', () => {
    expect(recognizeMarker(dcpMessage('<dcp-boundary ref="m0003" />'))?.ref).toBe('m0003');
    expect(recognizeMarker(dcpMessage('  <dcp-boundary ref="m0004" turn="1" step="0" extra="y" /> tail'))?.number).toBe(4);
    expect(recognizeMarker(dcpMessage('<dcp-boundary ref="b1" turn="1" step="0" />'))).toBeUndefined();
  });

  it('nudge and alias lines are read from the marker message; triggers and controls carrying commandId are not markers', () => {
    const marker = recognizeMarker(
      dcpMessage(
        '<dcp-boundary ref="m0010" turn="3" step="0" />\nDCP compression recommended: context is at 85% of the model window. Compress a closed range to free space.\nalias m0001=s5\n alias m0002=s9 \nalias m0001=s7',
      ),
    );
    expect(marker).toEqual({
      ref: 'm0010',
      number: 10,
      hasNudge: true,
      aliases: [
        { ref: 'm0001', seq: 5 },
        { ref: 'm0002', seq: 9 },
        { ref: 'm0001', seq: 7 },
      ],
    });
    expect(recognizeMarker(dcpMessage('<compress triggered manually>\nThe user asked…', { commandId: 'c1' }))).toBeUndefined();
    expect(recognizeMarker(dcpMessage('<dcp-control>sweep</dcp-control>', { commandId: 'c1' }))).toBeUndefined();
  });
});
