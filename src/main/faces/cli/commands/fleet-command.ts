/**
 * `sessionctx fleet status|publish` (issue 29, README "Beyond one machine"): the shared corpus index of a fleet of
 * hosts. `status` prints what the index holds — each host with its corpora, sessions and lag (the age of its stalest
 * corpus's last complete publish), the distinct sessions and the database's size — and publishes nothing; `publish`
 * publishes what changed in this host's root now and says what it wrote (a long-lived command does it by itself).
 * `--json` prints the catalog's answer as it is. The database URL is printed redacted (no password).
 */
import type { PublishSummary } from '../../../engine/fleet/corpus-publisher.js';
import type { FleetStatus } from '../../../engine/fleet/fleet-status.js';
import type { CliCommandDefinition } from '../cli-command.js';
import type { CommandContext } from '../command-context.js';
import { writeJson, writeLines } from '../cli-io.js';
import { withCatalog } from '../open-engine.js';

/** A byte count as people read it. */
function bytes(count: number): string {
  if (count < 1024) return `${count} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = count / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/** A lag as people read it. */
function age(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 120_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 7_200_000) return `${Math.round(ms / 60_000)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

/** `count` with the word's singular or plural form (`s` added unless given). */
function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** The redacted URL of the configured index, or `undefined` for the embedded backend. */
function databaseOf(context: CommandContext): string | undefined {
  const { corpusIndex } = context.resolved;
  return corpusIndex.backend === 'postgres' ? corpusIndex.databaseUrl.redacted() : undefined;
}

/** The status as lines: the index, then each host and its corpora. */
function statusLines(status: FleetStatus, database: string | undefined): string[] {
  const lines = [
    `corpus index: ${database ?? 'postgres'} (schema ${status.schemaVersion}): ${plural(status.sessions, 'session')} from ${plural(status.hosts.length, 'host')}, database ${bytes(status.databaseBytes)} (index ${bytes(status.indexBytes)})`,
  ];
  for (const host of status.hosts) {
    lines.push(
      `host ${host.host}: ${plural(host.corpora, 'corpus', 'corpora')}, ${plural(host.artifacts, 'session')}, lag ${age(host.lagMs)}`,
    );
    for (const corpus of status.corpora.filter((each) => each.host === host.host))
      lines.push(`  ${corpus.root}: ${plural(corpus.artifacts, 'session')}, published ${corpus.publishedAt} (${age(corpus.lagMs)} ago)`);
  }
  return lines;
}

function publishLines(summary: PublishSummary): string[] {
  return [
    `published ${summary.corpusId}: ${summary.published} written, ${summary.unchanged} unchanged, ${summary.removed} removed, ${plural(summary.sources, 'source entry', 'source entries')} (${plural(summary.batches, 'transaction')})`,
  ];
}

/** The `fleet` group's line in the help. */
export const FLEET_GROUP_DESCRIPTION =
  'the shared corpus index of a fleet of hosts (corpusIndex.backend "postgres"): its status, or publish now';

/** `sessionctx fleet status`. */
const fleetStatusCommand: CliCommandDefinition<[]> = {
  name: ['fleet', 'status'],
  usage: {
    description: 'print the shared corpus index: each host with its corpora, sessions and lag, the distinct sessions, the database size',
    examples: ['sessionctx fleet status', 'SESSIONCTX_CORPUS_INDEX=postgres sessionctx fleet status --json'],
    workers: false,
  },
  options: [],
  run: (context, _line) =>
    withCatalog(
      context,
      async ({ catalog }) => {
        const status = await catalog.fleetStatus(context.signal);
        const database = databaseOf(context);
        if (context.json) writeJson(context.io, { database: database ?? null, ...status });
        else writeLines(context.io, statusLines(status, database));
      },
      { publishes: false },
    ),
};

/** `sessionctx fleet publish`. */
const fleetPublishCommand: CliCommandDefinition<[]> = {
  name: ['fleet', 'publish'],
  usage: {
    description: "publish what changed in this host's root into the shared corpus index now, and say what was written",
    examples: ['sessionctx fleet publish --root ~/.dsh/sessions', 'sessionctx fleet publish --json'],
  },
  options: [],
  run: (context, _line) =>
    withCatalog(context, async ({ catalog }) => {
      const summary = await catalog.publishToFleet();
      if (context.json) writeJson(context.io, summary);
      else writeLines(context.io, publishLines(summary));
    }),
};

/** The group's commands. */
export const fleetCommands: readonly CliCommandDefinition<[]>[] = [fleetStatusCommand, fleetPublishCommand];
