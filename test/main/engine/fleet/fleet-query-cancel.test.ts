/**
 * Cancelling a fleet query (issue 29, docs/FLEET.md §4): an aborted statement rejects at once with the signal's reason
 * and is cancelled on the real server (it leaves `pg_stat_activity` long before it would have ended by itself); the
 * pool keeps serving; an already aborted signal sends nothing.
 */
import { describe, expect, it } from 'vitest';
import { DatabaseUrl } from '../../../../src/main/engine/fleet/database-url.js';
import { FleetDatabase } from '../../../../src/main/engine/fleet/fleet-database.js';
import { useFleetFixture } from './fleet-test-fixture.js';

const fleet = useFleetFixture('fleet-cancel');

/** Polls `check` until it holds; fails after 20 s (the statement under test would run 600 s). */
async function eventually(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('a fleet query with a signal', () => {
  it('is cancelled on the server when the signal aborts, and the pool keeps serving', async () => {
    const name = await fleet.cluster.createDatabase();
    const database = await FleetDatabase.open({ url: new DatabaseUrl(fleet.cluster.url(name)) });
    const sleeping = async (): Promise<boolean> =>
      (
        await fleet.cluster.sql(
          name,
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE 'SELECT pg_sleep(600)%'",
        )
      )[0]?.['n'] === 1;
    try {
      const controller = new AbortController();
      const outcome = database.query('SELECT pg_sleep(600)', [], controller.signal).catch((error: unknown) => error);
      await eventually('the statement runs', sleeping);
      const reason = new Error('the caller went away');
      controller.abort(reason);
      expect(await outcome).toBe(reason);
      await eventually('the server ended the statement', async () => !(await sleeping()));
      expect(await database.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
      const before = new AbortController();
      before.abort(reason);
      await expect(database.query('SELECT pg_sleep(600)', [], before.signal)).rejects.toBe(reason);
      expect(await sleeping()).toBe(false);
    } finally {
      await database.close();
    }
  }, 60_000);
});
