import { describe, expect, it } from 'vitest';
import { compileGlob, globMatcher, matchesGlob } from '../../../src/protocol/dcp/glob.js';
import { canonicalArguments, dedupKey } from '../../../src/protocol/dcp/canonical-arguments.js';
import { filePathsOfCall } from '../../../src/protocol/dcp/file-paths.js';

describe('§18 item 31: glob table', () => {
  it('matches the documented examples', () => {
    expect(matchesGlob('**/*.ts', 'src/a.ts')).toBe(true);
    expect(matchesGlob('**/*.ts', 'src/deep/a.ts')).toBe(true);
    expect(matchesGlob('*.txt', 'a.txt')).toBe(true);
    expect(matchesGlob('*.txt', 'dir/a.txt')).toBe(false);
    expect(matchesGlob('file?.md', 'file1.md')).toBe(true);
    expect(matchesGlob('**/a.txt', 'C:\\work\\a.txt')).toBe(true);
    expect(matchesGlob('', '')).toBe(false);
    expect(matchesGlob('', 'a.txt')).toBe(false);
    expect(compileGlob('')).toBeUndefined();
  });

  it('details: ** prefix may be empty, ? is one non-slash character, everything else is literal, anchored both ends', () => {
    expect(matchesGlob('**/*.ts', 'a.ts')).toBe(true);
    expect(matchesGlob('file?.md', 'file10.md')).toBe(false);
    expect(matchesGlob('file?.md', 'file/.md')).toBe(false);
    expect(matchesGlob('a.txt', 'abtxt')).toBe(false);
    expect(matchesGlob('(x)+[y].txt', '(x)+[y].txt')).toBe(true);
    expect(matchesGlob('*.txt', 'a.txt.bak')).toBe(false);
    expect(matchesGlob('src/**', 'src/a/b/c.ts')).toBe(true);
    expect(matchesGlob('src\\*.ts', 'src/a.ts')).toBe(true);
    expect(matchesGlob('**/*.txt', '/x/a.txt')).toBe(true);
  });

  it('a matcher over several patterns', () => {
    const matches = globMatcher(['', '*.md', '**/secret/**']);
    expect(matches('README.md')).toBe(true);
    expect(matches('a\\secret\\key.pem')).toBe(true);
    expect(matches('src/a.ts')).toBe(false);
    expect(globMatcher([])('anything')).toBe(false);
  });
});

describe('§7.8 file paths of a call (pure part of item 34)', () => {
  it('reads top-level file_path and filePath only', () => {
    expect(filePathsOfCall('read', '{"file_path":"/x/a.txt"}')).toEqual(['/x/a.txt']);
    expect(filePathsOfCall('read', '{"filePath":"/x/a.txt"}')).toEqual(['/x/a.txt']);
    expect(filePathsOfCall('read', '{"file_path":"a","filePath":"b"}')).toEqual(['a', 'b']);
    expect(filePathsOfCall('read', '{"path":"a.txt"}')).toEqual([]);
    expect(filePathsOfCall('read', '{"nested":{"file_path":"a.txt"}}')).toEqual([]);
    expect(filePathsOfCall('read', '{"file_path":3}')).toEqual([]);
    expect(filePathsOfCall('read', 'not json')).toEqual([]);
    expect(filePathsOfCall('read', '["file_path"]')).toEqual([]);
  });

  it('with protectedFilePatterns ["**/*.txt"], /x/a.txt is protected', () => {
    const matches = globMatcher(['**/*.txt']);
    expect(filePathsOfCall('read', '{"file_path":"/x/a.txt"}').some(matches)).toBe(true);
    expect(filePathsOfCall('read', '{"filePath":"/x/a.txt"}').some(matches)).toBe(true);
  });

  it('apply_patch: every Add/Delete/Update File path of patchText', () => {
    const patchText = [
      '*** Begin Patch',
      '*** Add File: src/new.ts',
      '+x',
      '*** Update File: src/old.ts',
      '*** Move to: src/moved.ts',
      '*** Delete File: docs/gone.md\r',
      '*** End Patch',
    ].join('\n');
    expect(filePathsOfCall('apply_patch', JSON.stringify({ patchText }))).toEqual(['src/new.ts', 'src/old.ts', 'docs/gone.md']);
    expect(filePathsOfCall('other_tool', JSON.stringify({ patchText }))).toEqual([]);
  });
});

describe('§18 item 39: canonical dedup keys', () => {
  it('key order is irrelevant', () => {
    expect(dedupKey('read', '{"a":1,"b":2}')).toBe(dedupKey('read', '{"b":2,"a":1}'));
    expect(canonicalArguments('{"b":2,"a":1}')).toBe('{"a":1,"b":2}');
  });

  it('null-valued keys are dropped', () => {
    expect(dedupKey('read', '{"a":null}')).toBe(dedupKey('read', '{}'));
    expect(canonicalArguments('{"x":{"z":null,"y":[null,1]}}')).toBe('{"x":{"y":[null,1]}}');
  });

  it('sorting is recursive, arrays keep their order, keys use default string order', () => {
    expect(canonicalArguments('{"b":{"d":1,"c":[{"f":1,"e":2}]},"a":0}')).toBe('{"a":0,"b":{"c":[{"e":2,"f":1}],"d":1}}');
    expect(canonicalArguments('[2,1]')).not.toBe(canonicalArguments('[1,2]'));
    expect(canonicalArguments('{"9":1,"10":2,"a":3}')).toBe('{"10":2,"9":1,"a":3}');
  });

  it('unparseable arguments use the raw string; the tool name is part of the key', () => {
    expect(canonicalArguments('{bad')).toBe('{bad');
    expect(dedupKey('read', '{bad')).toBe('read::{bad');
    expect(dedupKey('read', '{"a":1}')).toBe('read::{"a":1}');
    expect(dedupKey('read', '{"a":1}')).not.toBe(dedupKey('grep', '{"a":1}'));
  });
});
