// Issue 27 item 2: the warm corpus view says which sessions may differ between two of its snapshots — the ids of
// every directory it checked again, as listed before and after — and "unknown" when it cannot (a full build between
// them, more changes than its change log keeps, a snapshot of another view). Found here by the stat sweep alone
// (notifications dropped, revalidateMs 0), so what is checked again is exactly what changed on disk.
import { mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { artifactPathFor } from '../../../../src/io/artifact-path.js';
import { CorpusChangeLog } from '../../../../src/main/engine/corpus/corpus-change-log.js';
import { CorpusView } from '../../../../src/main/engine/corpus/corpus-view.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import type { SessionHeader } from '../../../../src/protocol/events.js';
import { EventSequence, sessionHeader } from '../store/store-test-builders.js';

let dir: string;
let store: JsonlSessionStore;
const views: CorpusView[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessionctx-view-changes-'));
  store = await JsonlSessionStore.open({ root: join(dir, 'root'), compression: 'none', titleIndex: false });
});

afterEach(async () => {
  for (const view of views.splice(0)) await view.close();
  await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
});

function viewOf(changeLogLimit?: number): CorpusView {
  const view = new CorpusView({
    config: store.config,
    revalidateMs: 0,
    ignoreNotifications: true,
    ...(changeLogLimit === undefined ? {} : { changeLogLimit }),
  });
  views.push(view);
  return view;
}

async function create(id: string, cwd = '/w/alpha'): Promise<SessionHeader> {
  const header = sessionHeader(id, cwd);
  const seq = new EventSequence();
  await store.create(header, [seq.turnStart(1), seq.userMessage(`question ${id}`), seq.turnEnd(1)]);
  return header;
}

async function append(header: SessionHeader): Promise<void> {
  const seq = new EventSequence();
  seq.advance(3);
  await store.append(header, [seq.turnStart(2), seq.userMessage('more'), seq.turnEnd(2)]);
}

function sorted(ids: ReadonlySet<string> | undefined): string[] | undefined {
  return ids === undefined ? undefined : [...ids].sort();
}

describe('corpus view changes between snapshots', () => {
  it('names exactly the k appended sessions of n', async () => {
    const headers: SessionHeader[] = [];
    for (let index = 0; index < 10; index += 1) headers.push(await create(`s-${index}`, index % 2 === 0 ? '/w/alpha' : '/w/beta'));
    const view = viewOf();
    const first = (await view.current()).snapshot;
    await append(headers[2] as SessionHeader);
    await append(headers[7] as SessionHeader);
    const second = (await view.current()).snapshot;
    expect(second).not.toBe(first);
    expect(sorted(view.changesBetween(first, second))).toEqual(['s-2', 's-7']);
    // Nothing changed since: the same snapshot, no ids.
    const third = (await view.current()).snapshot;
    expect(third).toBe(second);
    expect(sorted(view.changesBetween(second, third))).toEqual([]);
  });

  it('names added and removed sessions (a removed one is no longer listed), across several snapshots', async () => {
    const a = await create('s-a');
    await create('s-b');
    const view = viewOf();
    const first = (await view.current()).snapshot;
    await rm(dirname(artifactPathFor(store.config, a.id, a.cwd)), { recursive: true });
    const second = (await view.current()).snapshot;
    await create('s-c', '/w/gamma');
    const third = (await view.current()).snapshot;
    expect(sorted(view.changesBetween(first, second))).toEqual(['s-a']);
    expect(sorted(view.changesBetween(second, third))).toEqual(['s-c']);
    expect(sorted(view.changesBetween(first, third))).toEqual(['s-a', 's-c']);
    expect(third.headerById.has('s-a')).toBe(false);
    expect(third.headerById.has('s-c')).toBe(true);
  });

  it('names every session of a project directory that was moved away', async () => {
    await create('s-a', '/w/alpha');
    await create('s-b', '/w/alpha');
    await create('s-c', '/w/beta');
    const view = viewOf();
    const first = (await view.current()).snapshot;
    const project = dirname(dirname(artifactPathFor(store.config, 's-a', '/w/alpha')));
    await rename(project, join(dir, 'elsewhere'));
    const second = (await view.current()).snapshot;
    expect(sorted(view.changesBetween(first, second))).toEqual(['s-a', 's-b']);
    expect(second.headers.map((header) => header.id)).toEqual(['s-c']);
  });

  it('answers unknown past an overflowed change log, for a snapshot of another view, and backwards', async () => {
    const headers: SessionHeader[] = [];
    for (let index = 0; index < 4; index += 1) headers.push(await create(`s-${index}`));
    const view = viewOf(2);
    const first = (await view.current()).snapshot;
    await append(headers[0] as SessionHeader);
    const second = (await view.current()).snapshot;
    expect(sorted(view.changesBetween(first, second))).toEqual(['s-0']);
    for (const header of headers.slice(1)) await append(header);
    const third = (await view.current()).snapshot;
    // Three ids in one revision exceed a log of 2: unknown, from any earlier snapshot.
    expect(view.changesBetween(second, third)).toBeUndefined();
    expect(view.changesBetween(first, third)).toBeUndefined();
    expect(view.changesBetween(third, second)).toBeUndefined();
    const other = viewOf();
    const foreign = (await other.current()).snapshot;
    expect(view.changesBetween(foreign, third)).toBeUndefined();
    expect(view.changesBetween({}, third)).toBeUndefined();
  });
});

describe('the change log', () => {
  it('unions the revisions between two, and forgets the oldest past its bound', () => {
    const log = new CorpusChangeLog(3);
    log.touchAll();
    const built = log.commit();
    log.touch('a');
    const one = log.commit();
    log.touch('b');
    log.touch('c');
    const two = log.commit();
    expect(log.between(built - 1, two)).toBeUndefined();
    expect(sorted(log.between(built, two))).toEqual(['a', 'b', 'c']);
    expect(sorted(log.between(one, two))).toEqual(['b', 'c']);
    log.touch('d');
    const three = log.commit();
    // Four ids kept exceed 3: revision `one` ('a') is dropped, so changes are known from `one` on only.
    expect(log.between(built, three)).toBeUndefined();
    expect(sorted(log.between(one, three))).toEqual(['b', 'c', 'd']);
    expect(log.between(three, three + 1)).toBeUndefined();
    expect(() => new CorpusChangeLog(0)).toThrow(RangeError);
  });
});
