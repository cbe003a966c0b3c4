/**
 * The connection to the shared corpus index: a `pg` pool over one URL, every failure typed (`fleet-error.ts`), and
 * the schema brought to this program's version before anything else runs (`fleet-schema.ts`).
 */
import pg from 'pg';
import type { DatabaseUrl } from './database-url.js';
import { fleetFailure } from './fleet-error.js';
import { migrateFleetSchema } from './fleet-schema.js';

/** How the pool connects. */
export interface FleetDatabaseOptions {
  /** The server (prints redacted). */
  readonly url: DatabaseUrl;
  /** How long one connection attempt may take before `FLEET_UNREACHABLE`; default 10 000 ms. */
  readonly connectTimeoutMs?: number;
  /** Connections the pool may hold; default 4. */
  readonly maxConnections?: number;
}

/** One statement's parameters. */
export type SqlValues = readonly unknown[];

/** What a transaction body may run. */
export interface FleetTransaction {
  /** Runs one statement inside the transaction. */
  query<Row extends Record<string, unknown>>(text: string, values?: SqlValues): Promise<Row[]>;
}

/**
 * `body` in one transaction on `client`, begun with `begin`: committed when it resolves, rolled back when it throws
 * (its error as it is), and the client released — as broken when even the rollback failed. With `signal`, each
 * statement checks it first; `beforeRelease` runs just before the client goes back to the pool (a cancel listener
 * removed later could cancel another caller's statement on the same connection).
 */
async function inTransaction<T>(
  client: pg.PoolClient,
  begin: string,
  body: (tx: FleetTransaction) => Promise<T>,
  signal?: AbortSignal,
  beforeRelease?: () => void,
): Promise<T> {
  let broken = false;
  try {
    await client.query(begin);
    const result = await body({
      query: async <Row extends Record<string, unknown>>(text: string, values: SqlValues = []) => {
        signal?.throwIfAborted();
        return (await client.query(text, [...values])).rows as Row[];
      },
    });
    await client.query('COMMIT');
    return result;
  } catch (error) {
    try {
      await client.query('ROLLBACK');
    } catch {
      broken = true;
    }
    throw error;
  } finally {
    beforeRelease?.();
    client.release(broken);
  }
}

/** The shared database, with its schema at this program's version. */
export class FleetDatabase {
  readonly #pool: pg.Pool;

  private constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  /**
   * Connects and migrates the schema (or refuses a schema it must not touch).
   * @throws FleetError `FLEET_UNREACHABLE`, `FLEET_AUTH_FAILED`, `FLEET_SCHEMA_UNKNOWN_VERSION`, `FLEET_SCHEMA_FOREIGN_TABLES`
   */
  static async open(options: FleetDatabaseOptions): Promise<FleetDatabase> {
    const pool = new pg.Pool({
      connectionString: options.url.reveal(),
      connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
      max: options.maxConnections ?? 4,
      application_name: 'sessionctx',
    });
    // An idle connection the server drops would otherwise be an unhandled 'error' event that ends the process; the
    // next query reports the failure instead.
    pool.on('error', () => undefined);
    const database = new FleetDatabase(pool);
    try {
      await database.transaction((tx) => migrateFleetSchema(tx));
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw fleetFailure(error, 'opening the corpus index');
    }
    return database;
  }

  /**
   * Runs one statement outside a transaction. With `signal`, an abort cancels the statement on the server
   * (`pg_cancel_backend` of its connection's backend, from another connection of the pool) and rejects at once with
   * `signal.reason`; the connection goes back to the pool when the server has ended the statement.
   */
  async query<Row extends Record<string, unknown>>(text: string, values: SqlValues = [], signal?: AbortSignal): Promise<Row[]> {
    if (signal === undefined) {
      try {
        return (await this.#pool.query(text, [...values])).rows as Row[];
      } catch (error) {
        throw fleetFailure(error, 'querying the corpus index');
      }
    }
    signal.throwIfAborted();
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      throw fleetFailure(error, 'connecting to the corpus index');
    }
    const running = client.query(text, [...values]);
    // The connection goes back once the server ended the statement (answered, failed or cancelled).
    running.then(
      () => client.release(),
      () => client.release(),
    );
    let onAbort: () => void = () => undefined;
    const aborted = new Promise<never>((_resolve, reject) => {
      onAbort = () => {
        const backend = (client as unknown as { processID?: unknown }).processID;
        // The cancel's own failure changes nothing: the statement then ends by itself.
        if (typeof backend === 'number') this.#pool.query('SELECT pg_cancel_backend($1)', [backend]).catch(() => undefined);
        reject(signal.reason);
      };
    });
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      return (await Promise.race([running, aborted])).rows as Row[];
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      throw fleetFailure(error, 'querying the corpus index');
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  /**
   * Runs `body` in one transaction on one connection: committed when it resolves, rolled back when it throws. A
   * process that dies inside it leaves nothing of it (the server rolls back a connection that goes away).
   */
  async transaction<T>(body: (tx: FleetTransaction) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      throw fleetFailure(error, 'connecting to the corpus index');
    }
    try {
      return await inTransaction(client, 'BEGIN', body);
    } catch (error) {
      throw fleetFailure(error, 'writing the corpus index');
    }
  }

  /**
   * Runs `body` in one read-only transaction that sees one snapshot of the database (`REPEATABLE READ`), so several
   * statements answer from the same state while publishers write. With `signal`, an abort cancels the statement in
   * flight on the server (as {@link query} does) and rejects at once with `signal.reason`.
   */
  async readSnapshot<T>(body: (tx: FleetTransaction) => Promise<T>, signal?: AbortSignal): Promise<T> {
    signal?.throwIfAborted();
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      throw fleetFailure(error, 'connecting to the corpus index');
    }
    let rejectAborted: (reason: unknown) => void = () => undefined;
    const aborted = new Promise<never>((_resolve, reject) => {
      rejectAborted = reject;
    });
    const onAbort = (): void => {
      const backend = (client as unknown as { processID?: unknown }).processID;
      // The cancel's own failure changes nothing: the statement then ends by itself.
      if (typeof backend === 'number') this.#pool.query('SELECT pg_cancel_backend($1)', [backend]).catch(() => undefined);
      rejectAborted(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    // The connection goes back once the server ended the transaction (answered, failed or cancelled).
    const work = inTransaction(client, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', body, signal, () =>
      signal?.removeEventListener('abort', onAbort),
    );
    // Observed at once: after an abort nobody awaits it.
    work.catch(() => undefined);
    try {
      return await Promise.race([work, aborted]);
    } catch (error) {
      if (signal?.aborted === true) throw signal.reason;
      throw fleetFailure(error, 'querying the corpus index');
    }
  }

  /** Closes every connection. */
  async close(): Promise<void> {
    await this.#pool.end();
  }
}
