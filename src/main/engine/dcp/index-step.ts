/**
 * One event as the DCP index's sub-folds see it (DCP.md §3.4): the stored event, the host's surface delta, the
 * host state right after it, and the facts the composition derives once for every fold — the class of a replace
 * and the marker a user message carries.
 */
import type { SessionEvent } from '../../../protocol/events.js';
import type { RecognizedMarker } from '../../../protocol/dcp/marker-recognition.js';
import type { ClassifiedReplace } from '../../../protocol/dcp/replace-class.js';
import type { SurfaceDelta } from '../../../protocol/surface-view.js';
import type { IndexHost } from './index-host.js';

/** A replace delta of the host's notification. */
export type ReplaceDelta = Extract<SurfaceDelta, { kind: 'replace' }>;

/** A replacing event, classified once (§6.3). */
export interface ReplaceStep {
  readonly delta: ReplaceDelta;
  readonly classified: ClassifiedReplace;
}

/** What every sub-fold's `apply` receives. */
export interface IndexStep {
  readonly event: SessionEvent;
  /** `append` when the event joined the surface by appending; `undefined` for a log-only event or a replace. */
  readonly appended: boolean;
  /** The replace, when the event replaced surface nodes. */
  readonly replace: ReplaceStep | undefined;
  /** The DCP marker an appended `user/message` carries (§4.2). */
  readonly marker: RecognizedMarker | undefined;
  readonly host: IndexHost;
}
