/**
 * `sessionctx sessions --query Q [--target ID] [--cwd DIR] [--limit N]`: discovery — the sessions a
 * message could cite, ranked as the reference service ranks them, each with its canonical mention.
 */
import { SessionReferenceService } from '../../reference/session-reference-service.js';
import type { MentionCandidate } from '../../reference/reference-types.js';
import type { CliIo } from '../cli-io.js';
import { writeJson, writeLines } from '../cli-io.js';
import { openCorpus } from '../open-corpus.js';
import { ReportingSessionQuery } from '../reporting-query.js';
import { resolveTarget } from './resolve-target.js';

/** Options of candidate discovery. */
export interface CandidatesCommandOptions {
  readonly root: string;
  readonly json: boolean;
  readonly query: string;
  /** The citing session: excluded from the results; its cwd drives the ranking. */
  readonly target?: string;
  /** Overrides the target's cwd for ranking. */
  readonly cwd?: string;
  readonly limit?: number;
}

/** Prints the candidates (`listCandidates` semantics) with their mentions. */
export async function runCandidatesCommand(io: CliIo, options: CandidatesCommandOptions, signal?: AbortSignal): Promise<void> {
  const { query } = await openCorpus(options.root, io.env);
  const service = new SessionReferenceService({ sessionQuery: new ReportingSessionQuery(query, (line) => io.stderr.write(`${line}\n`)) });
  const target = await resolveTarget(query, options.target, options.cwd, signal);
  const candidates: MentionCandidate[] = await service.candidates(target, options.query, signal, options.limit ?? service.config.candidateLimit);
  if (options.json) {
    writeJson(io, candidates);
    return;
  }
  if (candidates.length === 0) {
    writeLines(io, [`no sessions match ${JSON.stringify(options.query)}`]);
    return;
  }
  writeLines(
    io,
    candidates.flatMap((candidate) => [`${candidate.label}  [${candidate.cwd ?? 'no cwd'}]  ${new Date(candidate.createdAt).toISOString().slice(0, 19).replace('T', ' ')}`, `  ${candidate.mention}`]),
  );
}
