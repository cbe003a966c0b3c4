/**
 * The shared corpus index's connection as a long-lived engine holds it (issue 29): opened on first use, not at engine
 * start, so an engine whose server is down starts and works locally; a failed open is forgotten, so the next caller
 * (the publisher's retry, a fleet query) tries again. Once open, the `pg` pool replaces connections the server drops
 * (a restarted server costs the statements in flight, which fail typed, not the pool).
 */
import { FleetDatabase, type FleetDatabaseOptions } from './fleet-database.js';
import { FleetError } from './fleet-error.js';

/** A database opened on demand and shared by every caller. */
export class FleetConnection {
  readonly #options: FleetDatabaseOptions;
  #opening: Promise<FleetDatabase> | undefined;
  #closed = false;

  /** Keeps how to connect; connects nothing yet. */
  constructor(options: FleetDatabaseOptions) {
    this.#options = options;
  }

  /**
   * The open database (connected and migrated), opening it now when it is not.
   * @throws FleetError `FLEET_UNREACHABLE`, `FLEET_AUTH_FAILED`, the schema refusals, `FLEET_CLOSED` after {@link close}
   */
  database(): Promise<FleetDatabase> {
    if (this.#closed) return Promise.reject(new FleetError('FLEET_CLOSED', 'the corpus index connection is closed'));
    if (this.#opening === undefined) {
      const opening = FleetDatabase.open(this.#options);
      this.#opening = opening;
      // A failed open is not kept: the next call connects again.
      opening.catch(() => {
        if (this.#opening === opening) this.#opening = undefined;
      });
    }
    return this.#opening;
  }

  /** Closes the pool (after an open in progress settles). Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    const opening = this.#opening;
    this.#opening = undefined;
    const database = await opening?.catch(() => undefined);
    await database?.close();
  }
}
