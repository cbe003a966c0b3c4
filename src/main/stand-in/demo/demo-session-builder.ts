/**
 * Builds realistic, valid dsh-format logs for the demo corpus: turns with prompts, streamed
 * answers, tool calls with results, titles and a native compaction bracket.
 */
import { asSessionId } from '../../../protocol/events.js';
import type { SessionEvent, SessionHeader } from '../../../protocol/events.js';

const MODEL_SOURCE = { kind: 'model', provider: 'demo', model: 'demo-chat' } as const;

/** One tool call of a scripted demo turn. */
export interface DemoToolCall {
  readonly name: string;
  readonly args: Record<string, unknown>;
  readonly result: string;
}

/** Accumulates the events of one demo session. */
export class DemoSessionBuilder {
  /** The events so far, seq = index. */
  readonly events: SessionEvent[] = [];
  private turn = 0;
  private time: number;
  private callCounter = 0;

  constructor(
    readonly header: SessionHeader,
    startTime: number,
  ) {
    this.time = startTime;
  }

  /** A header for a demo session. */
  static header(id: string, createdAt: number, cwd?: string): SessionHeader {
    return { version: 0, id: asSessionId(id), createdAt, ...(cwd !== undefined ? { cwd } : {}), delegationDepth: 0 };
  }

  private push(type: string, data: unknown, extra: Pick<SessionEvent, 'sourceEventSeqs' | 'surfaceOp'> = {}): number {
    const seq = this.events.length;
    this.time += 900 + ((seq * 37) % 700);
    this.events.push({
      type,
      seq,
      time: this.time,
      data,
      ...(extra.sourceEventSeqs !== undefined ? { sourceEventSeqs: extra.sourceEventSeqs } : {}),
      ...(extra.surfaceOp !== undefined ? { surfaceOp: extra.surfaceOp } : {}),
    });
    return seq;
  }

  /**
   * One completed turn: the prompt, then per step an answer (streamed as chunks) with the step's
   * tool calls and their results; the last step's answer has no calls.
   */
  turnWith(prompt: string, steps: ReadonlyArray<{ readonly answer: string; readonly calls?: readonly DemoToolCall[] }>): this {
    this.turn += 1;
    const turn = this.turn;
    this.push('turn/start', { turn });
    const promptSeq = this.push(
      'user/message',
      { content: [{ type: 'text', text: prompt }], source: { kind: 'user' }, role: 'user', id: `${this.header.id}-u${turn}` },
      { surfaceOp: 'append' },
    );
    if (turn === 1) this.userPromptSeq = promptSeq;
    steps.forEach((step, index) => {
      const stepNumber = index + 1;
      this.push('step/start', { turn, step: stepNumber });
      for (const piece of chunksOf(step.answer, 48)) {
        this.push('assistant/chunk', { turn, step: stepNumber, chunk: { type: 'text-delta', index: 0, text: piece } });
      }
      const calls = (step.calls ?? []).map((call) => ({ ...call, id: `call_${String((this.callCounter += 1)).padStart(4, '0')}` }));
      this.push(
        'assistant/message',
        {
          turn,
          step: stepNumber,
          message: {
            role: 'assistant',
            content: [
              { type: 'text', text: step.answer },
              ...calls.map((call) => ({ type: 'tool-call', id: call.id, name: call.name, arguments: JSON.stringify(call.args) })),
            ],
            source: MODEL_SOURCE,
            id: `${this.header.id}-a${turn}-${stepNumber}`,
          },
          usage: { inputTokens: 1200 + this.events.length, outputTokens: Math.ceil(step.answer.length / 4) },
        },
        { surfaceOp: 'append' },
      );
      for (const call of calls) {
        const callSeq = this.push('tool/call', {
          turn,
          step: stepNumber,
          callId: call.id,
          name: call.name,
          arguments: JSON.stringify(call.args),
        });
        this.push(
          'tool/result',
          {
            turn,
            step: stepNumber,
            message: {
              id: `${this.header.id}-r-${call.id}`,
              role: 'user',
              source: { kind: 'tool', callId: call.id },
              content: [{ type: 'tool-result', toolCallId: call.id, isError: false, content: [{ type: 'text', text: call.result }] }],
            },
          },
          { surfaceOp: 'append', sourceEventSeqs: [callSeq] },
        );
      }
      this.push('step/end', { turn, step: stepNumber });
    });
    this.push('turn/end', { turn, reason: { kind: 'completed' } });
    return this;
  }

  private userPromptSeq: number | undefined;

  /** A title, as dsh's title service writes it (latest wins). */
  title(
    title: string,
    source: { kind: 'fallback' } | { kind: 'user' } | { kind: 'provider'; provider: string } = {
      kind: 'provider',
      provider: 'session-title',
    },
  ): this {
    this.push('session/title', { title, messageSeqs: this.userPromptSeq === undefined ? [] : [this.userPromptSeq], source });
    return this;
  }

  /**
   * A native compaction of every surface node so far into one checkpoint (compaction/start,
   * summary, the checkpoint replace, compaction/end), outside any turn.
   */
  compactAll(summary: string): this {
    const surface = this.currentSurface();
    const first = surface[0];
    const last = surface[surface.length - 1];
    if (first === undefined || last === undefined) return this;
    const compactionId = `${this.header.id}-compaction-${this.events.length}`;
    const startSeq = this.push('compaction/start', { compactionId, turn: null });
    const summarySeq = this.push('compaction/summary', {
      compactionId,
      summary: [{ type: 'text', text: summary }],
      shadowedRange: { start: first, end: last },
      shadowedSeqs: surface,
      shadowedTokenCount: surface.length * 250,
      provider: 'demo',
      model: 'demo-chat',
    });
    this.push(
      'user/message',
      {
        content: [
          {
            type: 'text',
            text: 'This is an automatically generated checkpoint condensing an earlier span of the conversation.\n\n<compacted-summary>',
          },
          { type: 'text', text: summary },
          { type: 'text', text: '</compacted-summary>' },
        ],
        source: { kind: 'plugin', plugin: 'compact', compactionId },
        role: 'user',
        id: `${this.header.id}-checkpoint-${startSeq}`,
      },
      { sourceEventSeqs: [startSeq, summarySeq, ...surface], surfaceOp: { op: 'replace', start: first, end: last } },
    );
    this.push('compaction/end', { compactionId, turn: null });
    return this;
  }

  /** The current surface seqs, folded the simple way (appends, and replaces of the whole range). */
  private currentSurface(): number[] {
    const surface: number[] = [];
    for (const event of this.events) {
      if (event.surfaceOp === 'append') surface.push(event.seq);
      else if (event.surfaceOp !== undefined) {
        const from = surface.indexOf(event.surfaceOp.start);
        const to = surface.indexOf(event.surfaceOp.end);
        surface.splice(from, to - from + 1, event.seq);
      }
    }
    return surface;
  }
}

function chunksOf(text: string, size: number): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
}
