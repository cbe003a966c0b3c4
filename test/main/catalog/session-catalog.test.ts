/**
 * The face-neutral session catalog (main/catalog): its refusals are `CatalogError`s every face maps to its own terms,
 * a snapshot is prepared from the references alone (no made-up message), its DCP configuration is resolved once when
 * it is built, and the DCP summary of an engine without a root is refused as `no-root` (the Web's
 * `WEB_NO_SESSION_ROOT`, MCP's not-found).
 */
import { describe, expect, it } from 'vitest';
import { CatalogError } from '../../../src/main/catalog/catalog-error.js';
import type { CatalogEngine } from '../../../src/main/catalog/session-catalog.js';
import { standInCatalogEngine } from '../../support/stand-in-catalog-engine.js';
import { SessionCatalog } from '../../../src/main/catalog/session-catalog.js';
import { asMcpRefusal, McpRequestError } from '../../../src/main/faces/mcp/mcp-request-error.js';
import { createWebHandlers } from '../../../src/main/faces/web/web-handlers.js';
import { asSessionId } from '../../../src/protocol/events.js';
import type { ContentBlock } from '../../../src/protocol/events.js';
import { encodeSessionReferenceUri } from '../../../src/protocol/uri/session-uri.js';

const IDS = ['session-aa11', 'session-aa22', 'session-bb33'];

/** An engine over three listed sessions; `prepare` records the content it was handed. */
function fakeEngine(prepared: ContentBlock[][] = []): CatalogEngine {
  const header = (id: string) => ({ version: 0, id: asSessionId(id), createdAt: 0 });
  return standInCatalogEngine({
    listSessions: () => Promise.resolve(IDS.map((id) => ({ header: header(id), persisted: true, live: false }) as never)),
    readTitleSnapshots: (ids) =>
      Promise.resolve([...ids].map((id) => ({ sessionId: id, status: 'fulfilled', value: { session: header(id) } }) as never)),
    prepare: (_target, content) => {
      prepared.push([...content]);
      return Promise.resolve({
        content: [...content],
        additionalContext: { role: 'user', id: 'x', content: [{ type: 'text', text: 'SNAPSHOT' }], source: {} } as never,
      });
    },
  });
}

describe('the session catalog', () => {
  it('refuses with CatalogError: a malformed URI and an ambiguous prefix are invalid arguments, an unknown name is not found', async () => {
    const catalog = new SessionCatalog(fakeEngine(), { pageSize: 10 });
    await expect(catalog.resolve('dsh-session:%%%')).rejects.toMatchObject({
      name: 'CatalogError',
      kind: 'invalid-argument',
      code: 'CATALOG_INVALID_ARGUMENT',
    });
    await expect(catalog.resolve('aa')).rejects.toMatchObject({
      kind: 'invalid-argument',
      message: expect.stringContaining('session-aa11'),
    });
    await expect(catalog.resolve('zz')).rejects.toMatchObject({ kind: 'not-found', code: 'SESSION_QUERY_SESSION_NOT_FOUND' });
    await expect(catalog.page('not a cursor')).rejects.toBeInstanceOf(CatalogError);
    expect(await catalog.resolve('bb')).toBe('session-bb33');
    expect(await catalog.resolve(encodeSessionReferenceUri('session-aa22'))).toBe('session-aa22');
  });

  it('names a record by id or prefix once for every face: an ambiguous prefix keeps its matches, a reader takes the listed id', async () => {
    const catalog = new SessionCatalog(fakeEngine(), { pageSize: 10 });
    await expect(catalog.record('aa')).rejects.toMatchObject({
      name: 'AmbiguousSessionPrefixError',
      kind: 'invalid-argument',
      matches: ['session-aa11', 'session-aa22'],
    });
    expect((await catalog.record('aa2'))?.header.id).toBe('session-aa22');
    expect(await catalog.record('zz')).toBeUndefined();
    // No root in this engine: a name no listing has is not found, as typed.
    await expect(catalog.requireRecord('zz')).rejects.toMatchObject({ code: 'SESSION_QUERY_SESSION_NOT_FOUND' });
    expect(await catalog.readerFor('bb', '/elsewhere')).toMatchObject({ id: 'session-bb33' });
    // A target no session has is a new conversation's id, used as typed.
    expect(await catalog.readerFor('session-new', undefined)).toMatchObject({ id: 'session-new' });
  });

  it('prepares a snapshot from the references alone: prepare() is handed no made-up message', async () => {
    const prepared: ContentBlock[][] = [];
    const catalog = new SessionCatalog(fakeEngine(prepared), { pageSize: 10 });
    const snapshot = await catalog.snapshot(['session-aa11', 'bb']);
    expect(prepared).toEqual([[]]);
    expect(snapshot.text).toBe('SNAPSHOT');
    expect(snapshot.sessions.map((source) => source.sessionId)).toEqual(['session-aa11', 'session-bb33']);
  });

  it('refuses a DCP summary without a session root as no-root, which the Web reports as WEB_NO_SESSION_ROOT and MCP as not found', async () => {
    const catalog = new SessionCatalog(fakeEngine(), { pageSize: 10 });
    const signal = new AbortController().signal;
    await expect(catalog.dcpSummary(asSessionId('session-aa11'), signal)).rejects.toMatchObject({
      kind: 'no-root',
      code: 'CATALOG_NO_SESSION_ROOT',
    });
    const handlers = createWebHandlers({ catalog, budget: { maxReferenceBytes: 1000, maxReferences: 3 } });
    await expect(handlers['dcp/summary']({ sessionId: 'session-aa11' }, { signal })).rejects.toMatchObject({
      name: 'WebServerError',
      code: 'WEB_NO_SESSION_ROOT',
      status: 404,
    });
    expect(asMcpRefusal(new CatalogError('no-root', 'x'))).toMatchObject({ kind: 'not-found' });
  });

  it('MCP maps each refusal kind to its own: invalid-argument → invalid-params (MCP_INVALID_ARGUMENTS), not-found → not-found', () => {
    const invalid = asMcpRefusal(new CatalogError('invalid-argument', 'bad'));
    expect(invalid).toBeInstanceOf(McpRequestError);
    expect(invalid).toMatchObject({ kind: 'invalid-params', code: 'MCP_INVALID_ARGUMENTS', message: 'bad' });
    expect(asMcpRefusal(new CatalogError('not-found', 'gone'))).toMatchObject({
      kind: 'not-found',
      code: 'SESSION_QUERY_SESSION_NOT_FOUND',
    });
    const other = new Error('other');
    expect(asMcpRefusal(other)).toBe(other);
  });
});
