// `GET /api/events` (issue 28 item 2, docs/WEB.md "Live updates"): a real server over a copy of the dsh-small root and a
// real warm engine; sessions are written into the copy with plain file writes (as another process would write them),
// and the stream must report them. The expected rows are the test's own (the session it wrote, the title it appended),
// never the server's listing.
import { rm } from 'node:fs/promises';
import { request, type IncomingMessage } from 'node:http';
import { dirname } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../../src/protocol/events.js';
import type { WebCorpusChange } from '../../../../src/protocol/web/web-api.js';
import { startWebServer, type RunningWebServer } from '../../../../src/main/faces/web/web-server.js';
import type { LocalSessionEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import { appendEvents, CorpusSession, writeSession } from '../../engine/search/search-corpus.js';
import { makeWebFixture, send, signIn, testEngine, type WebFixture } from './web-test-support.js';

/** One server-sent message as the stream framed it. */
interface StreamMessage {
  readonly id?: string;
  readonly event?: string;
  readonly data?: string;
  readonly retry?: string;
  /** A comment line (`: heartbeat`). */
  readonly comment?: string;
}

/** An open event stream read by a plain HTTP client: its messages so far, and how to end it. */
interface OpenedStream {
  readonly status: number;
  readonly headers: IncomingMessage['headers'];
  readonly messages: StreamMessage[];
  /** Resolves when the server ended the response. */
  readonly ended: Promise<void>;
  /** Cuts the connection from the client's side. */
  destroy(): void;
}

/** Opens `GET /api/events` and parses the SSE framing as it arrives (blank line ends a message; `:` is a comment). */
function openStream(port: number, headers: Record<string, string>, path = '/api/events'): Promise<OpenedStream> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      const messages: StreamMessage[] = [];
      let buffer = '';
      let ended: () => void = () => undefined;
      const endedPromise = new Promise<void>((done) => {
        ended = done;
      });
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let cut = buffer.indexOf('\n\n');
        while (cut >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const message: Record<string, string> = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) message['comment'] = line.slice(1).trim();
            else {
              const colon = line.indexOf(':');
              message[line.slice(0, colon)] = line.slice(colon + 1).replace(/^ /, '');
            }
          }
          messages.push(message);
          cut = buffer.indexOf('\n\n');
        }
      });
      res.on('end', () => ended());
      res.on('close', () => ended());
      res.on('error', () => ended());
      resolve({ status: res.statusCode ?? 0, headers: res.headers, messages, ended: endedPromise, destroy: () => req.destroy() });
    });
    req.on('error', (error) => {
      if ((error as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(error);
    });
    req.end();
  });
}

/** The `corpus` changes a stream received. */
function changesOf(stream: OpenedStream): WebCorpusChange[] {
  return stream.messages.filter((m) => m.event === 'corpus').map((m) => JSON.parse(m.data ?? '') as WebCorpusChange);
}

/** Polls until `check` passes (the warm view's notifications arrive within milliseconds; the bound is generous). */
async function until(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const CWD = '/home/dev/projects/live-test';

let fixture: WebFixture | undefined;
let engine: LocalSessionEngine | undefined;
let server: RunningWebServer | undefined;

afterEach(async () => {
  await server?.close();
  await engine?.close();
  await fixture?.cleanup();
  server = undefined;
  engine = undefined;
  fixture = undefined;
});

async function serve(
  options: { maxEventStreams?: number; heartbeatMs?: number } = {},
): Promise<{ port: number; cookie: string; root: string }> {
  fixture = await makeWebFixture();
  engine = await testEngine(fixture.root);
  server = await startWebServer({ engine, assetsDir: fixture.assetsDir, ...options });
  return { port: server.port, cookie: await signIn(server.port, server.token), root: fixture.root };
}

describe('GET /api/events', () => {
  it('keeps the request guard: no cookie is 401, a foreign Origin 403, POST 405 with Allow: GET', async () => {
    const { port, cookie } = await serve();
    expect((await send(port, { path: '/api/events' })).status).toBe(401);
    const foreign = await send(port, { path: '/api/events', headers: { cookie, origin: 'http://evil.example' } });
    expect(foreign.status).toBe(403);
    expect(JSON.parse(foreign.body).error.code).toBe('WEB_FORBIDDEN_ORIGIN');
    const rebinding = await send(port, { path: '/api/events', headers: { cookie, host: `evil.example:${port}` } });
    expect(rebinding.status).toBe(403);
    const post = await send(port, {
      method: 'POST',
      path: '/api/events',
      headers: { cookie, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(post.status).toBe(405);
    expect(post.headers['allow']).toBe('GET');
  });

  it('starts with a reset, then reports a session written into the root, its new title, an append and its removal', async () => {
    const { port, cookie, root } = await serve();
    const stream = await openStream(port, { cookie });
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    await until(() => stream.messages.some((m) => m.event === 'reset'), 'the reset');
    const reset = stream.messages.find((m) => m.event === 'reset')!;
    expect(reset.id).toMatch(/^[0-9a-f]+-0$/);
    expect(stream.messages.find((m) => m.retry !== undefined)).toBeDefined();

    const session = new CorpusSession('session-live-0001', CWD, 1_800_000_000_000);
    session.turn('How do live updates reach the page?', 'As server-sent events.');
    const path = await writeSession(root, session, 'none');
    await until(() => changesOf(stream).some((c) => c.added.some((row) => row.sessionId === 'session-live-0001')), 'the new session');
    const added = changesOf(stream)
      .flatMap((c) => c.added)
      .find((row) => row.sessionId === 'session-live-0001')!;
    expect(added).toMatchObject({ label: 'session-live-0001', cwd: CWD, createdAt: 1_800_000_000_000, live: false });

    const title: SessionEvent = {
      type: 'session/title',
      seq: session.events.length,
      time: 1_800_000_100_000,
      data: { title: 'Live updates over SSE', messageSeqs: [], source: { kind: 'user' } },
    } as SessionEvent;
    session.events.push(title);
    await appendEvents(root, session, [title], 'none');
    await until(
      () =>
        changesOf(stream).some((c) =>
          c.changed.some((row) => row.sessionId === 'session-live-0001' && row.label === 'Live updates over SSE'),
        ),
      'the new title',
    );

    const sizeBefore = changesOf(stream)
      .flatMap((c) => [...c.added, ...c.changed])
      .filter((row) => row.sessionId === 'session-live-0001')
      .at(-1)!.sizeBytes;
    await appendEvents(root, session, session.turn('And an appended turn?', 'It changes the row.'), 'none');
    await until(
      () => changesOf(stream).some((c) => c.changed.some((row) => row.sessionId === 'session-live-0001' && row.sizeBytes > sizeBefore)),
      'the append',
    );

    await rm(dirname(path), { recursive: true, force: true });
    await until(() => changesOf(stream).some((c) => c.removed.includes('session-live-0001')), 'the removal');

    // Revisions count up by one, and each message's id carries its revision.
    const revisions = changesOf(stream).map((c) => c.revision);
    expect(revisions).toEqual(revisions.map((_, index) => index + 1));
    const ids = stream.messages.filter((m) => m.event === 'corpus').map((m) => m.id);
    expect(ids).toEqual(revisions.map((revision) => `${reset.id!.split('-')[0]}-${revision}`));
    stream.destroy();
  });

  it('catches a reconnecting client up after its Last-Event-ID (or ?since=), and resets one it cannot', async () => {
    const { port, cookie, root } = await serve();
    const first = await openStream(port, { cookie });
    await until(() => first.messages.some((m) => m.event === 'reset'), 'the reset');
    const lastId = first.messages.find((m) => m.event === 'reset')!.id!;
    first.destroy();

    // Written while no stream is open.
    const session = new CorpusSession('session-live-0002', CWD, 1_800_000_000_001);
    session.turn('Written while the page was away', 'Still reported.');
    await writeSession(root, session, 'none');
    const probe = await openStream(port, { cookie, 'last-event-id': lastId });
    // The write reaches the server through its watch, or — when the watch of the new session directory came after
    // the file was written (a race a loaded machine makes likely) — through the view's sweep, every revalidateMs / 2
    // (15 s by default): within the view's staleness bound, which is what this waits for.
    await until(() => changesOf(probe).some((c) => c.added.some((row) => row.sessionId === 'session-live-0002')), 'the catch-up', 25_000);
    expect(probe.messages.some((m) => m.event === 'reset')).toBe(false);
    probe.destroy();

    const bySince = await openStream(port, { cookie }, `/api/events?since=${encodeURIComponent(lastId)}`);
    await until(() => changesOf(bySince).length > 0, 'the catch-up by since');
    expect(changesOf(bySince)[0]!.added.map((row) => row.sessionId)).toContain('session-live-0002');
    bySince.destroy();

    for (const foreign of ['0123abcd-0', 'not an id', `${lastId.split('-')[0]}-999`]) {
      const other = await openStream(port, { cookie, 'last-event-id': foreign });
      await until(() => other.messages.some((m) => m.event === 'reset'), `a reset for ${foreign}`);
      expect(changesOf(other)).toEqual([]);
      other.destroy();
    }
    // Six streams and two catch-ups, one of which may wait for the view's sweep.
  }, 45_000);

  it('bounds the open streams, frees the place of a client that left, and sends heartbeat comments', async () => {
    const { port, cookie } = await serve({ maxEventStreams: 2, heartbeatMs: 50 });
    const one = await openStream(port, { cookie });
    const two = await openStream(port, { cookie });
    const refused = await send(port, { path: '/api/events', headers: { cookie } });
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.body).error.code).toBe('WEB_TOO_MANY_STREAMS');
    await until(() => one.messages.some((m) => m.comment === 'heartbeat'), 'a heartbeat');
    one.destroy();
    // The server sees the disconnect and frees the place.
    let three: OpenedStream | undefined;
    const started = Date.now();
    while (three?.status !== 200 && Date.now() - started < 5000) {
      const attempt = await openStream(port, { cookie });
      if (attempt.status === 200) three = attempt;
      else await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(three?.status).toBe(200);
    two.destroy();
    three?.destroy();
  });

  it('ends every open stream when the server closes', async () => {
    const { port, cookie } = await serve();
    const stream = await openStream(port, { cookie });
    await until(() => stream.messages.length > 0, 'the first message');
    await server!.close();
    await stream.ended;
    expect(stream.messages.some((m) => m.event === 'reset')).toBe(true);
  });
});
