/**
 * `sessionctx/dsh`: sessionctx's reference engine as a dsh plugin (docs/DSH.md). The default export is the cordis
 * plugin class a dsh profile mounts in place of `@deepseek-ai/dsh-session-reference`; the named exports are what that
 * package exports besides its class, so code written against dsh's package can import them from here. Node ≥ 22 (dsh's
 * own floor); no other entry of sessionctx imports this one.
 */
import { SessionctxReferenceResolver } from './session-reference-resolver.js';

export { SessionctxReferenceResolver, SESSION_REFERENCE_RESOLVER_KEY } from './session-reference-resolver.js';
export { dshResolverConfigSchema, resolveDshResolverConfig } from './resolver-config.js';
export type { DshReads, DshResolverConfig, DshResolverConfig as Config } from './resolver-config.js';
export type { DshAgent, DshSession } from './dsh-host-shapes.js';
export { SessionReferenceError } from '../protocol/reference-errors.js';
export type { SessionReferenceErrorCode } from '../protocol/reference-errors.js';
export { MAX_REFERENCES, DEFAULT_CANDIDATE_LIMIT, DEFAULT_MAX_REFERENCE_BYTES } from '../main/engine/reference/reference-config.js';
export { SESSION_REFERENCE_SCHEME, encodeSessionReferenceUri, decodeSessionReferenceUri } from '../protocol/uri/session-uri.js';
export { parseSessionReferenceText } from '../protocol/uri/mention-parser.js';
export { formatSessionReferenceMention } from '../protocol/uri/mention-formatter.js';
export type { Candidate, MentionCandidate, PreparedReferences } from '../main/engine/reference/reference-types.js';

/**
 * The plugin class, as dsh's package exports its resolver: as the default export and by name.
 * @alias
 */
export default SessionctxReferenceResolver;
