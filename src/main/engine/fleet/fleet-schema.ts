/**
 * The schema of the shared corpus index and its migrations (issue 29). Everything lives in the `sessionctx` schema
 * of the database, with a version row in `sessionctx.schema_version`. The program creates the schema, and migrates
 * an older version forward, inside one transaction under an advisory lock (two hosts starting at once never both
 * create it). A schema it must not touch is refused before any statement changes it:
 *
 * - a version this program does not know (a newer sessionctx wrote it) → `FLEET_SCHEMA_UNKNOWN_VERSION`;
 * - a table in the schema that is not one of ours (or tables without a version row) → `FLEET_SCHEMA_FOREIGN_TABLES`.
 */
import type { FleetTransaction } from './fleet-database.js';
import { FleetError } from './fleet-error.js';

/** The database schema that holds our tables. */
export const FLEET_SCHEMA = 'sessionctx';

/** The version this program writes and reads. */
export const FLEET_SCHEMA_VERSION = 4;

/** The advisory lock key (one 64-bit key) that serialises migrations across processes: "sctxmig" in ASCII. */
const MIGRATION_LOCK = '32496624787810663';

/** One migration: the tables that exist once it ran, and its statements. */
interface Migration {
  readonly version: number;
  readonly tables: readonly string[];
  readonly statements: readonly string[];
}

/**
 * Version 1: corpora (one per host and root) and their artifacts (header, latest title, revision, and the lower-cased
 * keys discovery matches, each with a `pg_trgm` GIN index so a substring filter need not read every row). Header and
 * title are kept as JSON text, not `jsonb` or bare text: `JSON.stringify` escapes a lone surrogate, which UTF-8 text
 * cannot hold, so what comes back is exactly what was published.
 */
const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    tables: ['schema_version', 'corpora', 'artifacts'],
    statements: [
      'CREATE EXTENSION IF NOT EXISTS pg_trgm',
      `CREATE SCHEMA IF NOT EXISTS ${FLEET_SCHEMA}`,
      `CREATE TABLE ${FLEET_SCHEMA}.schema_version (
        singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
        version integer NOT NULL
      )`,
      `CREATE TABLE ${FLEET_SCHEMA}.corpora (
        corpus_id text PRIMARY KEY,
        host text NOT NULL,
        root text NOT NULL,
        published_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`,
      `CREATE TABLE ${FLEET_SCHEMA}.artifacts (
        corpus_id text NOT NULL REFERENCES ${FLEET_SCHEMA}.corpora (corpus_id) ON DELETE CASCADE,
        session_id text NOT NULL,
        revision text NOT NULL,
        header_json text NOT NULL,
        created_at bigint NOT NULL,
        cwd text,
        title_json text,
        id_key text NOT NULL,
        cwd_key text,
        label_key text NOT NULL,
        published_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (corpus_id, session_id)
      )`,
      `CREATE INDEX artifacts_session ON ${FLEET_SCHEMA}.artifacts (session_id)`,
      `CREATE INDEX artifacts_id_key_trgm ON ${FLEET_SCHEMA}.artifacts USING gin (id_key gin_trgm_ops)`,
      `CREATE INDEX artifacts_cwd_key_trgm ON ${FLEET_SCHEMA}.artifacts USING gin (cwd_key gin_trgm_ops)`,
      `CREATE INDEX artifacts_label_key_trgm ON ${FLEET_SCHEMA}.artifacts USING gin (label_key gin_trgm_ops)`,
    ],
  },
  /**
   * Version 2: per published artifact revision, what preparation needs to cite it from another host — its
   * source-cache entry in the cache's own file format (versioned, checksummed; `cache/source-cache-file.ts` reads it)
   * with the key it was built for (as JSON text: the key holds NUL separators), or NULLs when that revision is not a valid session (nothing to cite; not scanned
   * again until it changes). A table of its own, so discovery's rows stay narrow; it goes with its artifact.
   */
  {
    version: 2,
    tables: ['schema_version', 'corpora', 'artifacts', 'sources'],
    statements: [
      `CREATE TABLE ${FLEET_SCHEMA}.sources (
        corpus_id text NOT NULL,
        session_id text NOT NULL,
        revision text NOT NULL,
        record_key text,
        record bytea,
        PRIMARY KEY (corpus_id, session_id),
        FOREIGN KEY (corpus_id, session_id) REFERENCES ${FLEET_SCHEMA}.artifacts (corpus_id, session_id) ON DELETE CASCADE
      )`,
      `CREATE INDEX sources_session ON ${FLEET_SCHEMA}.sources (session_id)`,
    ],
  },
  /**
   * Version 3: search documents (docs/FLEET.md §7). `search_sessions`: per published artifact, the revision its
   * documents are of, whether tool text is in them, and what the next publish continues an appended log from (the
   * title scan's checkpoint and the surface, v8-serialised; NULL: not a valid session, no documents). `documents`: one
   * row per event and role of the current surface, with the text as JSON text (exactly what was indexed), the
   * unicode61 token string a phrase is matched in (` tok1 tok2 `, `fts5-tokens.ts`) and, for text with CJK
   * characters, the trigram-folded text; both under `pg_trgm` GIN indexes (which serve `LIKE '%…%'`). Both go with
   * their artifact.
   */
  {
    version: 3,
    tables: ['schema_version', 'corpora', 'artifacts', 'sources', 'search_sessions', 'documents'],
    statements: [
      `CREATE TABLE ${FLEET_SCHEMA}.search_sessions (
        corpus_id text NOT NULL,
        session_id text NOT NULL,
        revision text NOT NULL,
        include_tools boolean NOT NULL,
        state bytea,
        PRIMARY KEY (corpus_id, session_id),
        FOREIGN KEY (corpus_id, session_id) REFERENCES ${FLEET_SCHEMA}.artifacts (corpus_id, session_id) ON DELETE CASCADE
      )`,
      `CREATE TABLE ${FLEET_SCHEMA}.documents (
        corpus_id text NOT NULL,
        session_id text NOT NULL,
        seq integer NOT NULL,
        ord integer NOT NULL,
        role text NOT NULL,
        time double precision NOT NULL,
        body_json text NOT NULL,
        tokens text NOT NULL,
        token_count integer NOT NULL,
        folded text,
        PRIMARY KEY (corpus_id, session_id, seq, ord),
        FOREIGN KEY (corpus_id, session_id) REFERENCES ${FLEET_SCHEMA}.search_sessions (corpus_id, session_id) ON DELETE CASCADE
      )`,
      `CREATE INDEX documents_tokens_trgm ON ${FLEET_SCHEMA}.documents USING gin (tokens gin_trgm_ops)`,
      `CREATE INDEX documents_folded_trgm ON ${FLEET_SCHEMA}.documents USING gin (folded gin_trgm_ops)`,
    ],
  },
  /**
   * Version 4: artifacts in discovery's order, per cwd and for the rest (no cwd first), so it reads its groups in order and
   * stops at its limit when a needle matches most sessions (before, every match was sorted: 127 ms for a one-letter
   * needle over 100,000 sessions). Indexes only: a version 3 database is migrated in place.
   */
  {
    version: 4,
    tables: ['schema_version', 'corpora', 'artifacts', 'sources', 'search_sessions', 'documents'],
    statements: [
      `CREATE INDEX IF NOT EXISTS artifacts_cwd_created ON ${FLEET_SCHEMA}.artifacts (cwd, created_at DESC)`,
      `CREATE INDEX IF NOT EXISTS artifacts_rank_created ON ${FLEET_SCHEMA}.artifacts ((cwd IS NOT NULL), created_at DESC)`,
    ],
  },
];

/** The tables of our schema (ordinary, partitioned, views, materialized views, foreign tables), sorted. */
async function tablesOf(tx: FleetTransaction): Promise<string[]> {
  const rows = await tx.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'f') ORDER BY c.relname`,
    [FLEET_SCHEMA],
  );
  return rows.map((row) => row.name);
}

function foreignTablesError(foreign: readonly string[]): FleetError {
  return new FleetError(
    'FLEET_SCHEMA_FOREIGN_TABLES',
    `the database's "${FLEET_SCHEMA}" schema holds tables that are not sessionctx's (${foreign.join(', ')}); it was not modified`,
  );
}

/**
 * Brings the schema to {@link FLEET_SCHEMA_VERSION} inside `tx`, or refuses it without a change.
 * @returns the version found before (0 for a database without our schema).
 * @throws FleetError `FLEET_SCHEMA_UNKNOWN_VERSION`, `FLEET_SCHEMA_FOREIGN_TABLES`
 */
export async function migrateFleetSchema(tx: FleetTransaction): Promise<number> {
  await tx.query('SELECT pg_advisory_xact_lock($1::bigint)', [MIGRATION_LOCK]);
  const tables = await tablesOf(tx);
  let found = 0;
  if (tables.includes('schema_version')) {
    const rows = await tx.query<{ version: number }>(`SELECT version FROM ${FLEET_SCHEMA}.schema_version`);
    const version = rows.length === 1 ? rows[0]?.version : undefined;
    const known = MIGRATIONS.find((migration) => migration.version === version);
    if (version === undefined || known === undefined) {
      throw new FleetError(
        'FLEET_SCHEMA_UNKNOWN_VERSION',
        `the database's "${FLEET_SCHEMA}" schema has version ${version === undefined ? `rows ${rows.length}` : version}; this sessionctx knows versions 1 to ${FLEET_SCHEMA_VERSION}; it was not modified`,
      );
    }
    found = known.version;
  }
  const expected = found === 0 ? [] : (MIGRATIONS.find((migration) => migration.version === found)?.tables ?? []);
  const foreign = tables.filter((table) => !expected.includes(table));
  if (foreign.length > 0) throw foreignTablesError(foreign);
  for (const migration of MIGRATIONS) {
    if (migration.version <= found) continue;
    for (const statement of migration.statements) await tx.query(statement);
  }
  if (found === 0) await tx.query(`INSERT INTO ${FLEET_SCHEMA}.schema_version (version) VALUES ($1)`, [FLEET_SCHEMA_VERSION]);
  else if (found < FLEET_SCHEMA_VERSION) await tx.query(`UPDATE ${FLEET_SCHEMA}.schema_version SET version = $1`, [FLEET_SCHEMA_VERSION]);
  return found;
}
