/**
 * Run by process-exit.test.mts in a child Node 22 process: boot a host with dsh's resolver (or sessionctx's) over a temporary copy of
 * the raw fixture root, run one citing turn, dispose, and then do NOTHING — the test expects this process to exit on
 * its own. Prints one JSON line with what is still alive after dispose (`process.getActiveResourcesInfo()`).
 */
import DshResolver, { formatSessionReferenceMention } from '@deepseek-ai/dsh-session-reference';
import { SessionId } from '@deepseek-ai/dsh-session';
import { bootDshHost } from '../harness/dsh-host.mts';
import { copyFixtureRoot } from '../harness/fixture-root.mts';

// `EXIT_CHECK_RESOLVER=sessionctx` mounts sessionctx/dsh (engine reads on its worker pool) instead of dsh's resolver.
const resolver = process.env.EXIT_CHECK_RESOLVER === 'sessionctx' ? (await import('sessionctx/dsh')).default : DshResolver;
const temp = copyFixtureRoot('raw');
const host = await bootDshHost({ root: temp.root, resolver: resolver as never, replies: [{ kind: 'text', text: 'ok' }] });
const target = await host.createSession({ id: 'session-00000000-0000-4000-8000-000000000000', cwd: '/home/dev/projects/ml-pipeline' });
const mention = formatSessionReferenceMention({ sessionId: SessionId('session-a7eb71e0-a55c-4c81-b989-f0c51c63c83f') });
const turn = await host.runTurn(target, `Background for this task: ${mention}.`);
await host.dispose();
temp.remove();
// Right after dispose a `CloseReq` may still be in flight (a file handle closing); it completes within one turn of
// the event loop. `settled` is sampled after that turn.
const atDispose = process.getActiveResourcesInfo();
await new Promise((resolve) => setImmediate(resolve));
const settled = process.getActiveResourcesInfo();
const report = {
  outcome: turn.outcome,
  requests: turn.requests.length,
  atDispose,
  settled,
  dateNowRestored: Date.now() !== host.clock.peek(),
};
process.stdout.write(`${JSON.stringify(report)}\n`);
