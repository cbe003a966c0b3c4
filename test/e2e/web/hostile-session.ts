/**
 * A session log written for the hostile-content browser test (issue 28): a user message and an assistant answer whose
 * texts try every way Markdown could smuggle markup into the page. The log is the smallest one the engine reads
 * (header, the user message, a title, the answer), written into a test's temporary root.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The hostile session's id and title. */
export const HOSTILE_ID = 'session-0000a11e-0000-4000-8000-00000000bad0';
/** Its title, itself hostile (the page shows titles as text). */
export const HOSTILE_TITLE = 'Hostile <img src=x onerror=alert(1)> title';

/** Everything the user message tries; each line is one attack. */
export const HOSTILE_USER_TEXT = [
  'Raw script: <script>window.__pwned = "script"</script>',
  'Handler: <img src="x" onerror="window.__pwned = \'img\'">',
  'Markdown link: [click me](javascript:window.__pwned=%22link%22)',
  'Upper-case scheme: [again](JAVASCRIPT:window.__pwned=1)',
  'Data URL: [data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
  'Image: ![tracker](http://127.0.0.1:9/pixel.png)',
  'SVG: <svg onload="window.__pwned=\'svg\'"><circle r="5"/></svg>',
  'Closing tags: </p></div></li></ol></main><h1 class="escaped">Escaped heading</h1>',
  'Style: <style>body { display: none }</style>',
  'Autolink: <javascript:window.__pwned=2>',
].join('\n\n');

/** The assistant's answer: real Markdown that must render, plus a fenced block that closes its own tags. */
export const HOSTILE_ASSISTANT_TEXT = [
  '# A heading',
  '',
  'Some **bold**, some `inline code` and a [safe link](https://example.com/docs).',
  '',
  '- one',
  '- two',
  '',
  '```ts',
  `const long = '${'x'.repeat(400)}';`,
  '</code></pre></figure></div><script>window.__pwned = "fence"</script>',
  '```',
].join('\n');

/**
 * Writes the hostile session into `root` (in the project `/tmp/hostile`).
 *
 * @param root a session root
 */
export function writeHostileSession(root: string): void {
  const dir = join(root, '--tmp-hostile--', HOSTILE_ID);
  mkdirSync(dir, { recursive: true });
  const t = 1772900000000;
  const lines = [
    { type: 'session', version: 0, id: HOSTILE_ID, createdAt: t, cwd: '/tmp/hostile', delegationDepth: 0 },
    {
      type: 'user/message',
      seq: 0,
      time: t + 1,
      data: {
        content: [{ type: 'text', text: HOSTILE_USER_TEXT }],
        source: { kind: 'user' },
        role: 'user',
        id: '00000000-0000-4000-8000-000000000001',
      },
      surfaceOp: 'append',
    },
    { type: 'session/title', seq: 1, time: t + 2, data: { title: HOSTILE_TITLE, messageSeqs: [0], source: { kind: 'fallback' } } },
    {
      type: 'assistant/message',
      seq: 2,
      time: t + 3,
      data: {
        turn: 1,
        step: 1,
        message: {
          role: 'assistant',
          content: [{ type: 'text', text: HOSTILE_ASSISTANT_TEXT }],
          source: { kind: 'model', provider: 'oracle', model: 'oracle-chat-128k' },
          id: '00000000-0000-4000-8000-000000000002',
        },
      },
      surfaceOp: 'append',
    },
  ];
  writeFileSync(join(dir, 'session.jsonl'), `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
}
