// references/prepare over HTTP against dsh's own prepare() answers (dsh-small expected/references.json): the message
// is written with canonical mentions of the case's references, so the server's mention parsing yields the case's
// references; the preview must hold exactly dsh's rewritten message, context text and per-source metadata.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalSessionEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import { createEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import { formatSessionReferenceMention } from '../../../../src/protocol/uri/mention-formatter.js';
import { stringifyTagSafeJson } from '../../../../src/protocol/tag-safe-json.js';
import { REFERENCE_PROMPT_PREFIX, REFERENCE_PROMPT_SUFFIX } from '../../../../src/workers/reference/reference-prompt.js';
import { startWebServer } from '../../../../src/main/faces/web/web-server.js';
import type { RunningWebServer } from '../../../../src/main/faces/web/web-server.js';
import { readExpected } from '../../../support/fixtures.js';
import { callApi, makeWebFixture, signIn } from './web-test-support.js';
import type { WebFixture } from './web-test-support.js';

interface ReferenceCase {
  readonly name: string;
  readonly target: { readonly id: string };
  readonly references: ReadonlyArray<{ readonly sessionId: string; readonly label?: string }>;
  readonly config: { readonly maxReferenceBytes?: number; readonly maxReferences?: number };
  readonly result: any;
}

const CASES = readExpected<ReferenceCase[]>('references.json');

function caseNamed(name: string): ReferenceCase {
  const found = CASES.find((entry) => entry.name === name);
  if (found === undefined) throw new Error(`no reference case ${name}`);
  return found;
}

/** The message of a case as a person types it: the fixture's sentence with canonical mentions. */
function messageOf(entry: ReferenceCase): string {
  return `Background for this task: ${entry.references.map((reference) => formatSessionReferenceMention(reference)).join(', ')}.`;
}

const PREFIX_BYTES = 287;
const SUFFIX_BYTES = 23;
/** The framing of §11.1 in UTF-16 units, to cut the prompt's array out of its text. */
const PREFIX_LENGTH = REFERENCE_PROMPT_PREFIX.length;
const SUFFIX_LENGTH = REFERENCE_PROMPT_SUFFIX.length;

/** One server per budget, each over its own engine built with that budget. */
const servers = new Map<number, { engine: LocalSessionEngine; server: RunningWebServer; cookie: string }>();
let fixture: WebFixture;

beforeAll(async () => {
  fixture = await makeWebFixture();
  for (const maxReferenceBytes of [65536, 1024, 200]) {
    const engine = await createEngine({ root: fixture.root, workers: false, sourceCache: false, reference: { maxReferenceBytes } });
    const server = await startWebServer({ engine, assetsDir: fixture.assetsDir, budget: { maxReferenceBytes, maxReferences: 3 } });
    servers.set(maxReferenceBytes, { engine, server, cookie: await signIn(server.port, server.token) });
  }
});

afterAll(async () => {
  for (const { engine, server } of servers.values()) {
    await server.close();
    await engine.close();
  }
  await fixture?.cleanup();
});

async function prepareThrough(entry: ReferenceCase, target: string | undefined = entry.target.id) {
  const budget = entry.config.maxReferenceBytes ?? 65536;
  const running = servers.get(budget);
  if (running === undefined) throw new Error(`no server for budget ${budget}`);
  return callApi(running.server.port, running.cookie, 'references/prepare', {
    content: messageOf(entry),
    ...(target === undefined ? {} : { target }),
  });
}

describe('references/prepare', () => {
  for (const name of [
    'two-sources',
    'three-sources',
    'compacted:session-547c4005-0b6e-49a0-9497-6be9b6b464cd',
    'contains-session-reference:session-96692971-d1af-4d7b-a519-2e3dc0969b7e',
    'budget-1024:session-0219bec5-a1ed-4e22-aa5b-249c1571b8ca',
    'budget-1024-three-sources',
  ]) {
    it(`shows exactly what dsh's prepare() returned: ${name}`, async () => {
      const entry = caseNamed(name);
      const budget = entry.config.maxReferenceBytes ?? 65536;
      const { status, reply } = await prepareThrough(entry);
      expect(status).toBe(200);
      expect(reply.ok).toBe(true);
      const expectedContext = entry.result.additionalContext;
      const prompt: string = expectedContext.content[0].text;
      expect(reply.value.content).toBe(entry.result.content[0].text);
      expect(reply.value.context).toBe(prompt);
      expect(reply.value.totalBudgetBytes).toBe(3 * budget + PREFIX_BYTES + SUFFIX_BYTES + 4);
      const sources: any[] = reply.value.sources;
      expect(sources.map(({ renderedBytes: _r, budgetBytes: _b, ...summary }) => summary)).toEqual(
        expectedContext.source.references.map((reference: any) => ({
          sessionId: reference.sessionId,
          label: reference.label,
          keptMessages: reference.retainedMessages,
          omittedMessages: reference.omittedMessages,
          omittedBytes: reference.omittedBytes,
          truncated: reference.truncated,
          compacted: reference.compacted,
        })),
      );
      for (const source of sources) {
        expect(source.budgetBytes).toBe(budget);
        expect(source.renderedBytes).toBeGreaterThan(0);
        expect(source.renderedBytes).toBeLessThanOrEqual(budget);
      }
      // The sources' bytes, the brackets, the commas and the framing are the whole prompt (§11.1).
      const total = sources.reduce((sum, source) => sum + source.renderedBytes, 0) + 2 + (sources.length - 1);
      expect(total + PREFIX_BYTES + SUFFIX_BYTES).toBe(Buffer.byteLength(prompt, 'utf8'));
      // Each source's own size, by an independent definition: the elements of dsh's prompt array, each re-serialised
      // as the renderer does (tag-safe JSON of a JSON value is the text it came from).
      const array = JSON.parse(prompt.slice(PREFIX_LENGTH, prompt.length - SUFFIX_LENGTH)) as unknown[];
      expect(sources.map((source) => source.renderedBytes)).toEqual(
        array.map((element) => Buffer.byteLength(stringifyTagSafeJson(element), 'utf8')),
      );
    });
  }

  it('a message that cites no session has no context and no sources', async () => {
    const running = servers.get(65536)!;
    const { reply } = await callApi(running.server.port, running.cookie, 'references/prepare', { content: 'Just a question.' });
    expect(reply).toEqual({ ok: true, value: { content: 'Just a question.', sources: [], totalBudgetBytes: 3 * 65536 + 287 + 23 + 4 } });
  });

  for (const name of [
    'budget-200:session-0219bec5-a1ed-4e22-aa5b-249c1571b8ca',
    'self-reference',
    'too-many-four-distinct',
    'unknown-session',
  ]) {
    it(`a typed failure of prepare() is {ok:false} with dsh's code and message: ${name}`, async () => {
      const entry = caseNamed(name);
      const { status, reply } = await prepareThrough(entry);
      expect(status).toBe(422);
      expect(reply).toEqual({ ok: false, error: { code: entry.result.error.code, message: entry.result.error.message } });
    });
  }

  it('a mention whose URI does not decode is SESSION_REFERENCE_INVALID_REFERENCE', async () => {
    const running = servers.get(65536)!;
    const { reply } = await callApi(running.server.port, running.cookie, 'references/prepare', { content: 'see dsh-session:IiJ' });
    expect(reply).toMatchObject({ ok: false, error: { code: 'SESSION_REFERENCE_INVALID_REFERENCE' } });
  });
});
