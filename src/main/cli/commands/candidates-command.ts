/**
 * `sessionctx sessions --query Q [--target ID] [--cwd DIR] [--limit N]`: discovery — the sessions a
 * message could cite, ranked as the reference service ranks them, each with its canonical mention.
 */
import type { MentionCandidate } from '../../reference/reference-types.js';
import type { CommandContext } from '../command-context.js';
import { writeJson, writeLines } from '../cli-io.js';
import { withEngine } from '../open-engine.js';
import { formatSessionRow } from '../session-row.js';
import { resolveTarget } from './resolve-target.js';

/** Options of candidate discovery. */
export interface CandidatesCommandOptions {
  readonly query: string;
  /** The citing session: excluded from the results; its cwd drives the ranking. */
  readonly target?: string | undefined;
  /** Overrides the target's cwd for ranking. */
  readonly cwd?: string | undefined;
  /** How many candidates at most (default: the configured `candidateLimit`). */
  readonly limit?: number | undefined;
}

/**
 * Prints the candidates (`listCandidates` semantics) with their mentions, in the `sessions` row format.
 * @param context - the parsed command context.
 * @param options - the discovery flags.
 */
export async function runCandidatesCommand(context: CommandContext, options: CandidatesCommandOptions): Promise<void> {
  const { io, signal } = context;
  await withEngine(context, async (engine) => {
    // The listing's problems are reported on stderr by the engine; with --json they are part of the answer too.
    const { problems } = await engine.listSessionsReport(signal);
    const target = await resolveTarget(engine, options.target, options.cwd, signal);
    const limit = options.limit ?? context.resolved.config.candidateLimit;
    const candidates: MentionCandidate[] = await engine.candidates(target, options.query, signal, limit);
    if (context.json) {
      writeJson(io, { candidates, problems });
      return;
    }
    if (candidates.length === 0) {
      writeLines(io, [`no sessions match ${JSON.stringify(options.query)}`]);
      return;
    }
    writeLines(
      io,
      candidates.flatMap((candidate) => [
        formatSessionRow({ createdAt: candidate.createdAt, id: candidate.sessionId, label: candidate.label, cwd: candidate.cwd }),
        `  ${candidate.mention}`,
      ]),
    );
  });
}
