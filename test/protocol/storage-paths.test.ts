// SESSION-REFERENCE.md §15 item 82: the encodeSegment and projectKey tables of SESSION-LOG.md §9.3/§9.4.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SessionLogError } from '../../src/protocol/errors.js';
import { artifactFileName, encodeSegment, projectDirName, projectKey } from '../../src/protocol/storage-paths.js';
import { thrown } from '../support/thrown.js';

describe('encodeSegment (SESSION-LOG.md §9.3)', () => {
  const table: ReadonlyArray<readonly [string, string]> = [
    ['a/b', 'a~002Fb'],
    ['a\u0000b', 'a~0000b'],
    ['a~b', 'a~007Eb'],
    ['plain-ID_1.2', 'plain-ID_1.2'],
    ['.', '~002E'],
    ['..', '~002E~002E'],
    ['...', '...'],
    ['a b', 'a~0020b'],
    ['\uD800', '~D800'],
    ['😀', '~D83D~DE00'],
    ['unicode/引号"/slash\\/line\n', 'unicode~002F~5F15~53F7~0022~002Fslash~005C~002Fline~000A'],
  ];
  it.each(table)('%j → %s', (id, segment) => {
    expect(encodeSegment(id)).toBe(segment);
  });

  it('refuses the empty id with SESSION_STORE_INVALID_PATH', () => {
    const error = thrown(() => encodeSegment(''));
    expect(error).toBeInstanceOf(SessionLogError);
    expect(error).toMatchObject({ code: 'SESSION_STORE_INVALID_PATH', message: 'cannot encode an empty path segment' });
  });

  it('is injective and yields only [A-Za-z0-9._~-] (property)', () => {
    const decode = (segment: string): string => {
      if (segment === '~002E') return '.';
      if (segment === '~002E~002E') return '..';
      return segment.replace(/~([0-9A-F]{4})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    };
    fc.assert(
      fc.property(fc.string({ unit: 'binary', minLength: 1 }), (id) => {
        const segment = encodeSegment(id);
        expect(segment).toMatch(/^[A-Za-z0-9._~-]+$/);
        expect(decode(segment)).toBe(id);
      }),
    );
  });
});

describe('projectKey (SESSION-LOG.md §9.4)', () => {
  const table: ReadonlyArray<readonly [string, string]> = [
    ['/Users/qyj/work/deepseek-harness', '--Users-qyj-work-deepseek-harness--'],
    ['C:\\work\\agent', '--C-work-agent--'],
    ['/开发/~agent', '--~5F00~53D1-~007Eagent--'],
    ['/', '--root--'],
    ['::', '--root--'],
    ['//a//b/', '--a-b---'],
    ['C:/', '--C---'],
    ['-/x', '--x--'],
    ['/home/u/my project', '--home-u-my~0020project--'],
    ['/a/b-c', '--a-b-c--'],
    ['/a-b/c', '--a-b-c--'],
  ];
  it.each(table)('%j → %s', (cwd, dir) => {
    expect(projectKey(cwd)).toBe(dir);
  });

  it('keeps the first 251 slug code units: /p/ + 300 × x is 255 characters', () => {
    const dir = projectKey('/p/' + 'x'.repeat(300));
    expect(dir).toHaveLength(255);
    expect(dir).toBe('--p-' + 'x'.repeat(249) + '--');
  });

  it('refuses the empty cwd with SESSION_STORE_INVALID_PATH', () => {
    const error = thrown(() => projectKey(''));
    expect(error).toBeInstanceOf(SessionLogError);
    expect(error).toMatchObject({ code: 'SESSION_STORE_INVALID_PATH', message: 'cannot encode an empty project path' });
  });

  it('projectDirName uses _no-cwd for an absent cwd and projectKey otherwise', () => {
    expect(projectDirName(undefined)).toBe('_no-cwd');
    expect(projectDirName('/home/dev/projects/webshop')).toBe('--home-dev-projects-webshop--');
    expect(projectDirName('/Users/alice/Code/Notes App (beta)/café-sync')).toBe(
      '--Users-alice-Code-Notes~0020App~0020~0028beta~0029-caf~00E9-sync--',
    );
  });
});

describe('artifactFileName (SESSION-LOG.md §9.2)', () => {
  it('names session.jsonl.zstd and session.jsonl', () => {
    expect(artifactFileName('zstd')).toBe('session.jsonl.zstd');
    expect(artifactFileName('none')).toBe('session.jsonl');
  });
});
