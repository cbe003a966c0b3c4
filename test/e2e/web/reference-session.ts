/**
 * Small session logs written into a browser test's temporary root (issue 28): a header, one user message and a
 * title, in the project directory dsh names for the session's cwd. Enough for discovery, the picker and the reader.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectDirName } from '../../../src/protocol/storage-paths.js';

/** What one written session is. */
export interface WrittenSession {
  readonly id: string;
  readonly cwd: string;
  readonly title: string;
  readonly createdAt: number;
}

/**
 * Writes `session` into `root`.
 *
 * @param root a session root
 * @param session its id, cwd, title and creation time
 */
export function writeTitledSession(root: string, session: WrittenSession): void {
  const dir = join(root, projectDirName(session.cwd), session.id);
  mkdirSync(dir, { recursive: true });
  const t = session.createdAt;
  const lines = [
    { type: 'session', version: 0, id: session.id, createdAt: t, cwd: session.cwd, delegationDepth: 0 },
    {
      type: 'user/message',
      seq: 0,
      time: t + 1,
      data: {
        content: [{ type: 'text', text: `Work on ${session.title}` }],
        source: { kind: 'user' },
        role: 'user',
        id: `00000000-0000-4000-8000-${String(t).slice(-12).padStart(12, '0')}`,
      },
      surfaceOp: 'append',
    },
    { type: 'session/title', seq: 1, time: t + 2, data: { title: session.title, messageSeqs: [0], source: { kind: 'fallback' } } },
  ];
  writeFileSync(join(dir, 'session.jsonl'), `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
}
