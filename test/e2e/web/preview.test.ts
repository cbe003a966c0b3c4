/**
 * Preview and "Copy for another agent" in a real Chromium (issue 18): the rewritten message and the snapshot exactly
 * as dsh prepares them (`expected/references.json`), the per-source summary and budget meter, and typed errors in
 * words. Mentions of the error cases are built from SESSION-REFERENCE.md §4 (base64url of the JSON-quoted id).
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { readExpected } from '../../support/fixtures.js';
import { expectOnlyRefusedCalls, useWebPageFixture } from './web-page-fixture.js';

interface ReferenceCase {
  readonly name: string;
  readonly references: readonly { readonly sessionId: string; readonly label?: string }[];
  readonly result: {
    readonly content: readonly { readonly text: string }[];
    readonly additionalContext: {
      readonly source: {
        readonly references: readonly { retainedMessages: number; omittedMessages: number; truncated: boolean; compacted: boolean }[];
      };
      readonly content: readonly { readonly text: string }[];
    };
  };
}

/** dsh's prepare() result for the case of that name. */
function dshCase(name: string): ReferenceCase {
  const found = readExpected<ReferenceCase[]>('references.json').find((c) => c.name === name);
  if (found === undefined) throw new Error(`no references case ${name}`);
  return found;
}

/** SESSION-REFERENCE.md §4 and §6: `@[label](dsh-session:<base64url(JSON.stringify(id))>)` (plain labels only). */
function mentionOf(sessionId: string, label: string): string {
  return `@[${label}](dsh-session:${Buffer.from(JSON.stringify(sessionId), 'utf8').toString('base64url')})`;
}

const COMPACTED = dshCase('compacted:session-0219bec5-a1ed-4e22-aa5b-249c1571b8ca');

const web = useWebPageFixture();
let page: Page;
let problems: string[];

async function openCompose(hash = '#/compose'): Promise<void> {
  ({ page, problems } = await web.open(hash));
  await page.getByRole('textbox', { name: 'Message' }).focus();
}

/** Types dsh's case message `Background for this task: @<label>.` with the mention picked as a chip. */
async function typeCompactedCase(): Promise<void> {
  await page.keyboard.type('Background for this task: @0219bec5');
  const listbox = page.getByRole('listbox', { name: 'Reference suggestions' });
  await expect.poll(() => listbox.getAttribute('aria-busy')).toBe('false');
  await expect.poll(() => listbox.getByRole('option').count()).toBe(1);
  await page.keyboard.press('Enter');
  await page.keyboard.press('Backspace'); // the space the pick added
  await page.keyboard.type('.');
}

/** Pastes text as the clipboard would deliver it. */
async function paste(text: string): Promise<void> {
  await page.evaluate(`navigator.clipboard.writeText(${JSON.stringify(text)})`);
  await page.keyboard.press('ControlOrMeta+V');
}

describe('Preview', () => {
  it('shows exactly what the model receives: dsh’s rewritten message, the per-source summary and the bytes against the budget', async () => {
    await openCompose();
    await typeCompactedCase();
    await page.getByRole('button', { name: 'Preview' }).click();
    const preview = page.getByRole('region', { name: 'What the model receives' });
    await preview.waitFor();
    expect(await preview.locator('pre.preview-message').textContent()).toBe(COMPACTED.result.content[0]!.text);
    const source = COMPACTED.result.additionalContext.source.references[0]!;
    const counts = `${source.retainedMessages} kept · ${source.omittedMessages} omitted${source.truncated ? ' · truncated' : ''}${source.compacted ? ' · compacted' : ''}`;
    expect(await preview.locator('.source-counts').textContent()).toBe(counts);
    const meter = preview.locator('meter');
    const snapshot = COMPACTED.result.additionalContext.content[0]!.text;
    const rendered = Number(await meter.getAttribute('value'));
    const budget = Number(await meter.getAttribute('max'));
    // SESSION-REFERENCE.md §3: the per-source budget defaults to 65,536 bytes; the source's data fits inside it and
    // inside the whole context message.
    expect(budget).toBe(65_536);
    expect(rendered).toBeGreaterThan(0);
    expect(rendered).toBeLessThanOrEqual(Buffer.byteLength(snapshot, 'utf8'));
    await preview.locator('summary', { hasText: 'Snapshot sent as background' }).click();
    expect(await preview.locator('.preview-context pre').textContent()).toBe(snapshot);
  });

  it('Copy for another agent puts the prepared message and the snapshot on the clipboard', async () => {
    await openCompose();
    await typeCompactedCase();
    await page.getByRole('button', { name: 'Copy for another agent' }).click();
    await expect.poll(() => page.locator('.copy-status').textContent()).toBe('Copied the prepared message and its snapshot.');
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(
      `${COMPACTED.result.content[0]!.text}\n\n${COMPACTED.result.additionalContext.content[0]!.text}`,
    );
  });

  it('a message without mentions previews unchanged, with no sources', async () => {
    await openCompose();
    await page.keyboard.type('just a question');
    await page.keyboard.press('ControlOrMeta+Enter');
    const preview = page.getByRole('region', { name: 'What the model receives' });
    await preview.waitFor();
    expect(await preview.locator('pre.preview-message').textContent()).toBe('just a question');
    expect(await preview.locator('.preview-none').textContent()).toBe(
      'The message references no session; the model receives it as written.',
    );
  });

  const errorCases: { name: string; message: () => string; code: string; words: string; target?: string }[] = [
    {
      name: 'a malformed mention',
      message: () => 'see @[x](dsh-session:) please',
      code: 'SESSION_REFERENCE_INVALID_REFERENCE',
      words: 'A session mention in the message is malformed.',
    },
    {
      name: 'four sessions',
      message: () =>
        dshCase('too-many-four-distinct')
          .references.map((r) => mentionOf(r.sessionId, r.label ?? r.sessionId))
          .join(' '),
      code: 'SESSION_REFERENCE_TOO_MANY',
      words: 'The message mentions more sessions than one message may reference.',
    },
    {
      name: 'an unknown session',
      message: () => `see ${mentionOf('session-ffffffff-ffff-4fff-bfff-ffffffffffff', 'gone')}`,
      code: 'SESSION_REFERENCE_READ_FAILED',
      words: 'A referenced session could not be read.',
    },
    {
      name: 'the session it is written in',
      target: 'session-9d029d81-e515-48ac-b168-fef7011f3491',
      message: () => `see ${mentionOf('session-9d029d81-e515-48ac-b168-fef7011f3491', 'myself')}`,
      code: 'SESSION_REFERENCE_SELF_REFERENCE',
      words: 'The message mentions the session it is written in; a session cannot reference itself.',
    },
  ];
  for (const errorCase of errorCases) {
    it(`says in words why a message with ${errorCase.name} cannot be prepared (${errorCase.code})`, async () => {
      await openCompose(errorCase.target === undefined ? '#/compose' : `#/compose/${encodeURIComponent(errorCase.target)}`);
      await paste(errorCase.message());
      await page.getByRole('button', { name: 'Preview' }).click();
      const alert = page.getByRole('alert');
      await alert.waitFor();
      expect(await alert.getAttribute('data-code')).toBe(errorCase.code);
      expect(await alert.locator('.error-words').textContent()).toBe(errorCase.words);
      expect(await alert.locator('code').textContent()).toBe(errorCase.code);
      await expect.poll(() => page.getByRole('region', { name: 'What the model receives' }).count()).toBe(0);
      expectOnlyRefusedCalls(problems, 1);
    });
  }
});
