/**
 * The host face of `sessionctx/dsh` for dsh's typert loader (docs/DSH.md §5): the package's `./typert` export, whose
 * `TYPERT` manifest names the one Remote method, `sessionReferenceResolver/candidates` (the Web autocomplete), with
 * strict zod codecs for its wire fields. The loader imports this module and registers the manifest into
 * `ctx.typert`, so the gateway routes the browser's calls to {@link SessionctxReferenceResolver.remoteExportCandidates}.
 * The wire shapes are dsh's (the browser's client is dsh's own), the manifest sessionctx's.
 */
import { z } from 'zod';

/** The npm package that owns this manifest; the loader checks it against the package it resolved. */
const PACKAGE = 'sessionctx';
const SERVICE = 'sessionReferenceResolver';
const METHOD = 'candidates';

/** A dsh `SessionId` on the wire: a branded string. */
const sessionIdSchema = z.string();
const candidateSchema = z.object({
  mention: z.string(),
  sessionId: sessionIdSchema,
  label: z.string(),
  cwd: z.string().optional(),
  createdAt: z.number(),
});

const DISCOVERY_SUMMARY = 'Sessions the agent may cite, same working directory first, then none, then the rest, newest first within each.';

/** The manifest dsh's typert loader validates (`validateTypertManifest`) and registers. */
export const TYPERT = {
  package: PACKAGE,
  face: 'host',
  schemas: [],
  invocations: [
    {
      id: `${PACKAGE}#${SERVICE}/${METHOD}`,
      service: SERVICE,
      namespace: SERVICE,
      method: METHOD,
      implementation: 'remoteExportCandidates',
      invocation: { kind: 'direct' },
      // The agent is looked up from its id, and the call runs in that agent's scope.
      scope: { context: 'agent', wire: 'agentId' },
      parameters: [
        {
          name: 'agent',
          wire: 'agentId',
          source: 'lookup',
          lookup: 'agent',
          codec: { mode: 'strict', typeSymbol: '@deepseek-ai/dsh-session/types#SessionId', schema: sessionIdSchema },
        },
        {
          name: 'query',
          wire: 'query',
          source: 'json',
          codec: { mode: 'strict', typeSymbol: `${PACKAGE}#${SERVICE}/${METHOD}:query`, schema: z.string() },
        },
      ],
      cancellation: { parameter: 'signal' },
      result: { mode: 'strict', typeSymbol: `${PACKAGE}#${SERVICE}/${METHOD}:result`, schema: z.array(candidateSchema) },
    },
  ],
  model: {
    services: [
      {
        description: "sessionctx's cross-session reference engine as dsh's session reference resolver.",
        summary: "sessionctx's cross-session reference engine as dsh's session reference resolver.",
        tags: [],
        key: SERVICE,
        exportName: 'SessionctxReferenceResolver',
        members: [
          {
            kind: 'method',
            name: 'listCandidates',
            signature:
              'async listCandidates(agent: Agent, query?: string, limit?: number, signal?: AbortSignal): Promise<SessionReferenceCandidate[]>',
            summary: DISCOVERY_SUMMARY,
          },
          {
            kind: 'method',
            name: 'remoteExportCandidates',
            signature:
              "@Remote('candidates') async remoteExportCandidates(agent: Agent, query: string, signal: AbortSignal): Promise<SessionReferenceMentionCandidate[]>",
            summary: 'The Remote face of listCandidates: the configured candidate limit, each candidate with its canonical mention.',
          },
          {
            kind: 'method',
            name: 'prepare',
            signature:
              'async prepare(agent: Agent, content: ContentBlock[], references: SessionReferenceInput[], signal?: AbortSignal): Promise<PreparedReferencedMessage>',
            summary: 'The bounded, read-only snapshot of the cited sessions for one direct message.',
          },
        ],
        types: [],
      },
    ],
    events: [],
    objects: [],
  },
} as const;
