/**
 * The rooms of ARCHITECTURE.md as a check: which folder of `src/` may import which. Reads every source file's
 * import specifiers (static, `export … from` and dynamic) and resolves the relative ones to a folder, so a change
 * that lets DCP reach into the host, or the pure protocol into the file system, fails here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const SRC = join(REPO, 'src');

interface SourceImport {
  readonly file: string;
  /** The imported module: a repo-relative path for a relative specifier, else the bare specifier. */
  readonly target: string;
  readonly typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const IMPORT = /(?:^|\n)\s*(import|export)\s+(type\s+)?[^'";]*?from\s+'([^']+)'|import\('([^']+)'\)/g;

function importsOf(file: string): SourceImport[] {
  const text = readFileSync(file, 'utf8');
  const found: SourceImport[] = [];
  for (const match of text.matchAll(IMPORT)) {
    const specifier = match[3] ?? match[4];
    if (specifier === undefined) continue;
    const target = specifier.startsWith('.')
      ? relative(REPO, resolve(dirname(file), specifier))
          .split(sep)
          .join('/')
          .replace(/\.js$/, '.ts')
      : specifier;
    found.push({ file: relative(REPO, file).split(sep).join('/'), target, typeOnly: match[2] !== undefined });
  }
  return found;
}

const ALL = sourceFiles(SRC).flatMap(importsOf);

function from(folder: string): SourceImport[] {
  return ALL.filter((entry) => entry.file.startsWith(`${folder}/`));
}

function isNodeBuiltin(specifier: string): boolean {
  return specifier.startsWith('node:');
}

describe('room imports (ARCHITECTURE.md, Rooms)', () => {
  it('sees the imports it checks', () => {
    expect(ALL.length).toBeGreaterThan(1000);
    expect(from('src/main/engine/dcp').some((entry) => entry.target.startsWith('src/main/host-api/'))).toBe(true);
  });

  it('protocol imports nothing outside protocol except its pure, synchronous packages', () => {
    const pure = new Set(['zod', 'msgpackr/pack', 'node:buffer', 'node:crypto']);
    const outside = from('src/protocol').filter((entry) => !entry.target.startsWith('src/protocol/') && !pure.has(entry.target));
    expect(outside).toEqual([]);
  });

  it('io imports only protocol, io and Node built-ins', () => {
    const outside = from('src/io').filter(
      (entry) => !entry.target.startsWith('src/protocol/') && !entry.target.startsWith('src/io/') && !isNodeBuiltin(entry.target),
    );
    expect(outside).toEqual([]);
  });

  it('workers never import main', () => {
    expect(from('src/workers').filter((entry) => entry.target.startsWith('src/main/'))).toEqual([]);
  });

  it('the host API never imports the host or a plugin', () => {
    const banned = ['src/main/stand-in/host/', 'src/main/engine/dcp/', 'src/main/engine/reference/', 'src/main/stand-in/compose/'];
    expect(from('src/main/host-api').filter((entry) => banned.some((folder) => entry.target.startsWith(folder)))).toEqual([]);
  });

  it('DCP and the reference service depend on the host API, never on the host', () => {
    const reaching = [...from('src/main/engine/dcp'), ...from('src/main/engine/reference')].filter((entry) =>
      entry.target.startsWith('src/main/stand-in/host/'),
    );
    expect(reaching).toEqual([]);
  });

  it('the host does not know its plugins', () => {
    const banned = ['src/main/engine/dcp/', 'src/main/engine/reference/', 'src/main/stand-in/compose/', 'src/main/faces/cli/'];
    expect(from('src/main/stand-in/host').filter((entry) => banned.some((folder) => entry.target.startsWith(folder)))).toEqual([]);
  });

  it('the dsh entry (sessionctx/dsh) is imported by no other room, and only it imports dsh packages', () => {
    const outsideDsh = ALL.filter((entry) => !entry.file.startsWith('src/dsh/'));
    expect(outsideDsh.filter((entry) => entry.target.startsWith('src/dsh/'))).toEqual([]);
    // sessionctx/dsh-dcp is the other entry that may import a dsh package (its own rule, below).
    expect(outsideDsh.filter((entry) => !entry.file.startsWith('src/dsh-dcp/') && entry.target.startsWith('@deepseek-ai/'))).toEqual([]);
    // The dsh entry sees dsh through cordis, the typert protocol and schemastery alone; everything else is structural.
    const dshPackages = new Set(
      from('src/dsh')
        .map((entry) => entry.target)
        .filter((target) => target.startsWith('@deepseek-ai/')),
    );
    expect([...dshPackages].sort()).toEqual(['@deepseek-ai/cordis', '@deepseek-ai/dsh-typert-protocol', '@deepseek-ai/schemastery']);
  });

  it('the DCP dsh entry (sessionctx/dsh-dcp) is imported by no other room and sees dsh only through schemastery', () => {
    const outside = ALL.filter((entry) => !entry.file.startsWith('src/dsh-dcp/'));
    expect(outside.filter((entry) => entry.target.startsWith('src/dsh-dcp/'))).toEqual([]);
    expect(from('src/dsh-dcp').filter((entry) => entry.target.startsWith('src/dsh/'))).toEqual([]);
    // Everything else of the host is structural (src/dsh-dcp/dsh-dcp-host-shapes.ts): no cordis, no dsh package at run time.
    const dshPackages = new Set(
      from('src/dsh-dcp')
        .map((entry) => entry.target)
        .filter((target) => target.startsWith('@deepseek-ai/')),
    );
    expect([...dshPackages]).toEqual(['@deepseek-ai/schemastery']);
  });

  it('the faces (CLI, MCP, Web) reach the engine through the catalog and the engine: never host, dcp, pool or store', () => {
    const inner = ['src/main/stand-in/host/', 'src/main/engine/dcp/', 'src/main/engine/pool/', 'src/main/engine/store/'];
    const reaching = ['src/main/faces/cli', 'src/main/faces/mcp', 'src/main/faces/web']
      .flatMap((face) => from(face))
      .filter((entry) => inner.some((room) => entry.target.startsWith(room)));
    expect(reaching).toEqual([]);
  });

  it('src/main holds its rooms and its two entries, nothing else: faces, catalog, engine, host API, host kit, stand-in host', () => {
    const top = readdirSync(join(SRC, 'main'), { withFileTypes: true }).map((entry) =>
      entry.isDirectory() ? `${entry.name}/` : entry.name,
    );
    expect(top.sort()).toEqual(['catalog/', 'engine/', 'faces/', 'host-api/', 'host-entry.ts', 'host-kit/', 'index.ts', 'stand-in/']);
  });

  it("the engine's rooms and the catalog never import a face or the stand-in host", () => {
    const outward = ['src/main/faces/', 'src/main/stand-in/'];
    const reaching = [...from('src/main/engine'), ...from('src/main/catalog')].filter((entry) =>
      outward.some((room) => entry.target.startsWith(room)),
    );
    expect(reaching).toEqual([]);
  });

  it('the host kit (what every host shares) imports only protocol, the host API and itself', () => {
    const outside = from('src/main/host-kit').filter(
      (entry) => !['src/protocol/', 'src/main/host-api/', 'src/main/host-kit/'].some((room) => entry.target.startsWith(room)),
    );
    expect(outside).toEqual([]);
  });

  it('the stand-in host and its runners never import a face; the dsh entries never import the stand-in', () => {
    expect(from('src/main/stand-in').filter((entry) => entry.target.startsWith('src/main/faces/'))).toEqual([]);
    const dsh = [...from('src/dsh'), ...from('src/dsh-dcp')].filter((entry) => entry.target.startsWith('src/main/stand-in/'));
    expect(dsh).toEqual([]);
  });

  it('files are replaced in one place (io/atomic-file.ts, one durability rule): no other file renames into place or writes a temp file', () => {
    const renames = sourceFiles(SRC)
      .filter((file) => /\brename\(/.test(readFileSync(file, 'utf8')) || /\.tmp`/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(REPO, file).split(sep).join('/'));
    // The artifact writer publishes a new log with `link` (it must never replace one) and the session lock moves a stale
    // lock aside (RELIABILITY.md): neither is a replace.
    expect(renames.sort()).toEqual([
      'src/io/atomic-file.ts',
      'src/main/engine/store/artifact-writer.ts',
      'src/main/engine/store/session-lock.ts',
    ]);
  });

  it('the faces reach sessions only through the catalog: no face file calls an engine session method', () => {
    // Issue 26: a face is parse → one catalog call → format; the catalog owns the reads, id prefixes and readers.
    // The demo is exempt: it walks a person through the engine's own library API, as a host calls it.
    const exempt = new Set(['src/main/faces/cli/commands/demo-command.ts']);
    const sessionCall =
      /\b\w*[eE]ngine\??\.(listSessionsReport|listSessions|readTitleSnapshots|candidates|listCandidates|readSurface|searchSessions|searchIndexStatus|buildSearchIndex|clearSearchIndex|prepare|prepareSized)\(/g;
    const calls = sourceFiles(join(SRC, 'main/faces'))
      .map((file) => relative(REPO, file).split(sep).join('/'))
      .filter((file) => !exempt.has(file))
      .flatMap((file) => [...readFileSync(join(REPO, file), 'utf8').matchAll(sessionCall)].map((match) => `${file}: ${match[0]}`));
    expect(calls).toEqual([]);
  });

  it('no two files of the host import each other in a circle', () => {
    const edges = new Map<string, string[]>();
    for (const entry of from('src/main/stand-in/host')) {
      if (entry.typeOnly || !entry.target.startsWith('src/main/stand-in/host/')) continue;
      edges.set(entry.file, [...(edges.get(entry.file) ?? []), entry.target]);
    }
    const cycles: string[][] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, path: string[]): void => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        cycles.push([...path.slice(path.indexOf(file)), file]);
        return;
      }
      state.set(file, 'open');
      for (const next of edges.get(file) ?? []) visit(next, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of edges.keys()) visit(file, []);
    expect(cycles).toEqual([]);
  });
});
