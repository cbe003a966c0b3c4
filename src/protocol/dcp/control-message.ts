/**
 * Control messages (DCP.md §2, §11.5): `<dcp-control>BODY</dcp-control>` with BODY `sweep`, `expand bN` or
 * `recompress bN`. They are created by DCP's own command handler and are valid only from the `dsh-dcp` source with
 * a pending `commandId`; the pending table is the host's, so validity is decided with its lookup.
 */
import { isRecord } from '../events.js';
import { CONTROL_MESSAGE_RE, controlText, DCP_MESSAGE_SOURCE } from './constants.js';
import type { TextBlock } from '../events.js';
import { isDcpPluginSource } from './marker-recognition.js';
import { assertNever } from '../assert-never.js';

/** A control body. */
export type ControlBody =
  | { readonly kind: 'sweep' }
  | { readonly kind: 'expand'; readonly blockRef: string }
  | { readonly kind: 'recompress'; readonly blockRef: string };

/** The BODY text of a control. */
export function formatControlBody(body: ControlBody): string {
  switch (body.kind) {
    case 'sweep':
      return 'sweep';
    case 'expand':
      return `expand ${body.blockRef}`;
    case 'recompress':
      return `recompress ${body.blockRef}`;
    default:
      return assertNever(body, 'unexpected control body');
  }
}

/** `<dcp-control>BODY</dcp-control>`. */
export function formatControlText(body: ControlBody): string {
  return controlText(formatControlBody(body));
}

/** Parses a BODY text (`sweep`, `expand bN`, `recompress bN`), or `undefined`. */
export function parseControlBody(text: string): ControlBody | undefined {
  return parseControlText(controlText(text));
}

/** Parses a whole control text (the exact regex of §11.5), or `undefined`. */
export function parseControlText(text: string): ControlBody | undefined {
  const match = CONTROL_MESSAGE_RE.exec(text);
  if (match === null) return undefined;
  const body = match[1]!;
  if (body === 'sweep') return { kind: 'sweep' };
  const [verb, blockRef] = body.split(' ') as [string, string];
  return verb === 'expand' ? { kind: 'expand', blockRef } : { kind: 'recompress', blockRef };
}

/** The `createUserMessage` input of a control (the runtime's `followup` adds `commandId`); fresh objects. */
export function controlMessageInput(body: ControlBody): { content: TextBlock[]; source: { kind: 'plugin'; plugin: 'dsh-dcp' } } {
  // `content` before `source`: dsh-dcp's key order.
  return { content: [{ type: 'text', text: formatControlText(body) }], source: { ...DCP_MESSAGE_SOURCE } };
}

/** A valid control: its `commandId` and body. */
export interface RecognizedControl {
  readonly commandId: string;
  readonly body: ControlBody;
}

/**
 * Recognises a valid control among claimed messages (§11.5): `dsh-dcp` plugin source, a `commandId` for which
 * `isPending` is true, and exactly one block, a text block matching the control regex. Anything else (a human
 * typing the same text arrives with `source.kind:'user'`) is an ordinary message.
 */
export function recognizeControl(message: unknown, isPending: (commandId: string) => boolean): RecognizedControl | undefined {
  if (!isRecord(message)) return undefined;
  const source = message['source'];
  if (!isDcpPluginSource(source)) return undefined;
  const commandId = (source as Record<string, unknown>)['commandId'];
  if (typeof commandId !== 'string' || !isPending(commandId)) return undefined;
  const content = message['content'];
  if (!Array.isArray(content) || content.length !== 1) return undefined;
  const block: unknown = content[0];
  if (!isRecord(block) || block['type'] !== 'text' || typeof block['text'] !== 'string') return undefined;
  const body = parseControlText(block['text']);
  return body === undefined ? undefined : { commandId, body };
}
