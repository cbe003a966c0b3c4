// Cancellation through the protocol: a client that aborts a request sends `notifications/cancelled`; the server's
// handler must hand the abort to the engine call at once, and stay usable. The engine is a stand-in whose prepare()
// waits for its signal (a real slow read would make the test depend on the machine's speed).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it } from 'vitest';
import { createSessionMcpServer } from '../../../../src/main/faces/mcp/mcp-server.js';
import { SessionCatalog } from '../../../../src/main/catalog/session-catalog.js';
import type { CatalogEngine } from '../../../../src/main/catalog/session-catalog.js';
import { standInCatalogEngine } from '../../../support/stand-in-catalog-engine.js';
import { asSessionId } from '../../../../src/protocol/events.js';
import { encodeSessionReferenceUri } from '../../../../src/protocol/uri/session-uri.js';

const SESSION = 'session-slow';

/** An engine whose prepare() never finishes on its own: it settles only when its signal aborts. */
function waitingEngine(): { engine: CatalogEngine; aborted: Promise<unknown>; prepares: () => number } {
  let prepares = 0;
  let markAborted: (reason: unknown) => void = () => undefined;
  const aborted = new Promise<unknown>((resolve) => {
    markAborted = resolve;
  });
  const engine = standInCatalogEngine({
    listCandidates: () => Promise.resolve([{ sessionId: SESSION, label: 'slow', createdAt: 0 }]),
    listSessions: () => Promise.resolve([{ header: { version: 0, id: asSessionId(SESSION), createdAt: 0 } } as never]),
    readTitleSnapshots: () =>
      Promise.resolve([
        {
          sessionId: asSessionId(SESSION),
          status: 'fulfilled',
          value: { session: { version: 0, id: asSessionId(SESSION), createdAt: 0 }, title: undefined },
        } as never,
      ]),
    prepare: (_target, _content, _references, signal) => {
      prepares += 1;
      return new Promise((_resolve, reject) => {
        signal?.addEventListener(
          'abort',
          () => {
            markAborted(signal.reason);
            reject(signal.reason as Error);
          },
          { once: true },
        );
      });
    },
  });
  return { engine, aborted, prepares: () => prepares };
}

describe('cancellation', () => {
  it('a cancelled resources/read aborts the engine call at once; the server answers the next request', async () => {
    const { engine, aborted, prepares } = waitingEngine();
    const server = createSessionMcpServer({
      catalog: new SessionCatalog(engine, { pageSize: 50 }),
      version: '0',
      tools: true,
      log: () => undefined,
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'cancel-test', version: '0' });
    await client.connect(clientSide);

    const controller = new AbortController();
    const read = client.readResource({ uri: encodeSessionReferenceUri(SESSION) }, { signal: controller.signal });
    // Cancel once the engine call has started.
    while (prepares() === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(new Error('the user gave up'));
    await expect(read).rejects.toThrow('the user gave up');
    // The engine saw the abort (the server's handler signal), not merely the client giving up locally.
    expect(await aborted).toBeDefined();
    const listed = await client.listResources();
    expect(listed.resources.map((resource) => resource.uri)).toEqual([encodeSessionReferenceUri(SESSION)]);
    await client.close();
  });

  it('a cancelled reference_sessions tool call aborts the engine call too', async () => {
    const { engine, aborted, prepares } = waitingEngine();
    const server = createSessionMcpServer({
      catalog: new SessionCatalog(engine, { pageSize: 50 }),
      version: '0',
      tools: true,
      log: () => undefined,
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'cancel-test', version: '0' });
    await client.connect(clientSide);
    const controller = new AbortController();
    const call = client.callTool({ name: 'reference_sessions', arguments: { sessions: [SESSION] } }, undefined, {
      signal: controller.signal,
    });
    while (prepares() === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(new Error('stop'));
    await expect(call).rejects.toThrow('stop');
    expect(await aborted).toBeDefined();
    await client.close();
  });
});
