import { describe, expect, it } from 'vitest';
import {
  buildCheckpointText,
  buildExpansionText,
  buildPriorBlocksSection,
  buildRecompressionText,
  extractCheckpointBody,
  normalizeSummary,
} from '../../../src/protocol/dcp/checkpoint-text.js';
import { dedupReplacementMessage, isDedupReplacementContent, purgeText } from '../../../src/protocol/dcp/strategy-texts.js';
import {
  compressCompactionId,
  disambiguatedCompressCompactionId,
  expandCompactionId,
  recompressCompactionId,
  storedInMarker,
} from '../../../src/protocol/dcp/constants.js';
import type { Message } from '../../../src/protocol/events.js';

describe('§6.2 checkpoint text', () => {
  it('header, summary, appendix, blank line, one trailing id tag', () => {
    expect(buildCheckpointText('b1', '  Parser refactored.  ', '')).toBe(
      '[Compressed conversation section]\nParser refactored.\n\n<dcp-message-id>b1</dcp-message-id>',
    );
  });

  it('§18 item 20 (builder): a leading [bN] is removed', () => {
    expect(normalizeSummary('[b3] foo')).toBe('foo');
    expect(normalizeSummary('[b2]foo')).toBe('foo');
    expect(normalizeSummary('[b99] x')).toBe('x');
    expect(normalizeSummary('[b1] [b2] x')).toBe('[b2] x');
    expect(buildCheckpointText('b4', '[b3] foo', '')).toBe('[Compressed conversation section]\nfoo\n\n<dcp-message-id>b4</dcp-message-id>');
  });

  it('§18 item 21: the appendix follows the sanitised summary directly', () => {
    const appendix = '\nProtected tool read output verbatim:\nfile text';
    expect(buildCheckpointText('b2', ' [b1] Summary. ', appendix)).toBe(
      '[Compressed conversation section]\nSummary.\nProtected tool read output verbatim:\nfile text\n\n<dcp-message-id>b2</dcp-message-id>',
    );
  });

  it('§18 item 28 (text part): nesting puts prior bodies in delimiters and keeps exactly one id tag', () => {
    const b1 = buildCheckpointText('b1', 'Old work.', '');
    const body = extractCheckpointBody(b1, 'b1');
    expect(body).toBe('Old work.');
    const b2 = buildCheckpointText('b2', 'New work.', buildPriorBlocksSection([{ ref: 'b1', body }]));
    expect(b2).toBe(
      '[Compressed conversation section]\nNew work.\nIncluded prior blocks:\n<dcp-prior ref="b1">\nOld work.\n</dcp-prior>\n\n<dcp-message-id>b2</dcp-message-id>',
    );
    expect(b2.match(/<dcp-message-id>/g)).toHaveLength(1);
    expect(buildPriorBlocksSection([])).toBe('');
    expect(
      buildPriorBlocksSection([
        { ref: 'b1', body: 'A' },
        { ref: 'b3', body: 'B' },
      ]),
    ).toBe('\nIncluded prior blocks:\n<dcp-prior ref="b1">\nA\n</dcp-prior>\n<dcp-prior ref="b3">\nB\n</dcp-prior>');
  });

  it('body extraction of foreign or older layouts', () => {
    expect(extractCheckpointBody('legacy summary\n<dcp-message-id>b5</dcp-message-id>', 'b5')).toBe('legacy summary\n');
    expect(extractCheckpointBody('no tag at all', 'b5')).toBe('no tag at all');
    expect(extractCheckpointBody('[Compressed conversation section]\nx\n\n<dcp-message-id>b6</dcp-message-id>', 'b5')).toBe(
      '[Compressed conversation section]\nx\n\n<dcp-message-id>b6</dcp-message-id>',
    );
    expect(extractCheckpointBody('[Compressed conversation section]\n\n<dcp-message-id>b1</dcp-message-id>', 'b1')).toBe(
      '[Compressed conversation section]\n\n',
    );
  });

  it('expansion and recompression texts (§12.2, §12.3)', () => {
    expect(buildExpansionText('b1', '--- leaf 3 (user) ---\nhi', 'b2')).toBe(
      '[Expanded block b1]\n\n--- leaf 3 (user) ---\nhi\n\n<dcp-message-id>b2</dcp-message-id>',
    );
    const b1 = buildCheckpointText('b1', 'Old work.', '');
    expect(buildRecompressionText(extractCheckpointBody(b1, 'b1'), 'b3')).toBe(
      '[Compressed conversation section]\nOld work.\n\n<dcp-message-id>b3</dcp-message-id>',
    );
  });

  it('compaction ids and the inline-cleanup marker (§2)', () => {
    expect(compressCompactionId('c9', 0)).toBe('dcp-c9-0');
    expect(disambiguatedCompressCompactionId('c9', 0, 'b4')).toBe('dcp-c9-0-b4');
    expect(expandCompactionId('b1', 'b2')).toBe('dcp-expand-b1-b2');
    expect(recompressCompactionId('b1', 'b3')).toBe('dcp-recompress-b1-b3');
    expect(storedInMarker('b7')).toBe('[stored in b7]');
  });
});

describe('strategy replacement texts (§8.3, §8.4)', () => {
  const result: Message = {
    id: 'r1',
    role: 'user',
    source: { kind: 'tool', callId: 'c1' },
    content: [{ type: 'tool-result', toolCallId: 'c1', isError: false, content: [{ type: 'text', text: 'file body' }] }],
  };

  it('dedup replaces only the first block content and keeps every other key in order', () => {
    const replaced = dedupReplacementMessage(result, 'read')!;
    expect(JSON.stringify(replaced)).toBe(
      '{"id":"r1","role":"user","source":{"kind":"tool","callId":"c1"},"content":[{"type":"tool-result","toolCallId":"c1","isError":false,"content":[{"type":"text","text":"[duplicate read output removed; a newer identical call supersedes it]"}]}]}',
    );
    expect(isDedupReplacementContent(replaced)).toBe(true);
    expect(isDedupReplacementContent(result)).toBe(false);
    expect(JSON.stringify(result.content[0])).toContain('file body');
  });

  it('purge text', () => {
    expect(purgeText('bash', ['exit 1', 'no such file'])).toBe('[errored tool unit removed]\ntool: bash\nerror: exit 1\nno such file');
    expect(purgeText('bash', [])).toBe('[errored tool unit removed]\ntool: bash\nerror: tool failed (no error text)');
  });
});
