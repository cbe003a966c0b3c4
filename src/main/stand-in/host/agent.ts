/**
 * The agent loop (HOST.md §6): an inbox of user messages, a driver that runs one turn at a time, the
 * `agent/pre-step` waterfall before every step, model dispatch with the request invariant, streamed chunks,
 * tool calls, and the abort, model-error and pre-step-failure paths. Everything the model sees is logged first.
 */
import { randomUUID } from 'node:crypto';
import { errorChain, turnEndReasonForStepFailure } from '../../../protocol/error-chain.js';
import type { AssistantMessageData, ContentBlock, Message, MessageSource, ToolCallBlock } from '../../../protocol/events.js';
import { raceWithSignal } from '../../engine/signal/abort.js';
import { AssistantStreamAssembler } from './assistant-stream.js';
import { CommandRuntime } from './command-runtime.js';
import { isDeepFrozen } from './frozen-data.js';
import { HookRegistry } from './hook-registry.js';
import { jsonEqual } from '../../../protocol/json-equal.js';
import type { ModelChunk, ModelClient, ModelFailure, ModelRequest } from './model-client.js';
import type { RuntimeContextProvider } from './pre-step-waterfall.js';
import { runPreStepWaterfall } from './pre-step-waterfall.js';
import { Inbox } from './inbox.js';
import { assertRequestMatches } from './request-invariant.js';
import type { Session } from './session.js';
import type { RequestHeader } from './system-sections.js';
import { composeRequestHeader, SystemSections } from './system-sections.js';
import { ToolRunner } from './tool-runner.js';
import type { UserMessage } from '../../../protocol/user-message.js';
import { createUserMessage, freezeMessage } from '../../../protocol/user-message.js';
import type {
  AgentErrorEvent,
  CommandDefinition,
  CommandNotification,
  CommandResult,
  HostAgent,
  HostHookMap,
  HostHookName,
  ListenOptions,
  PluginStorage,
  PreStepDecision,
  PreStepPayload,
  SystemSection,
  ToolDefinition,
  TurnAbortReason,
} from '../../host-api/host-api.js';

/** A `turn/end` reason (SESSION-LOG.md §3.4) as this loop writes it. */
export type TurnEndReason =
  | { readonly kind: 'completed' }
  | { readonly kind: 'blocked' }
  | { readonly kind: 'aborted'; readonly reason: unknown }
  | { readonly kind: 'error'; readonly error: ModelFailure };

/** Agent construction options. */
export interface AgentOptions {
  readonly session: Session;
  readonly model: ModelClient;
  /** The runtime-context provider of the default pre-step decision (HOST.md §6.3). */
  readonly runtimeContext?: RuntimeContextProvider;
  /** An extra request check on every dispatch after the built-in one (the harness's cold fold, HOST.md §12). */
  readonly checkRequest?: (request: ModelRequest, session: Session) => void;
  /** Plugin storage available from the start (HOST.md §11); it may also be provided later. */
  readonly storage?: PluginStorage;
}

/** How a step ended: go on with the next pre-step, or end the turn with `reason`. */
type StepOutcome = { readonly kind: 'continue' } | { readonly kind: 'end'; readonly reason: TurnEndReason };

const CONTINUE: StepOutcome = { kind: 'continue' };

/** The `code` of an error when it is a string, else `UNKNOWN` (dsh's code for non-provider failures). */
function failureCode(error: unknown): string {
  const code: unknown = typeof error === 'object' && error !== null ? (error as { readonly code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : 'UNKNOWN';
}

/** The `turn/end` error record of a failure that has no provider failure record. */
function failureOf(error: unknown): ModelFailure {
  return { message: errorChain(error), code: failureCode(error) };
}

/** Asks an abandoned stream to finish, without waiting for it or caring how it ends. */
function closeQuietly(iterator: AsyncIterator<unknown>): void {
  iterator.return?.().catch(() => {
    // The stream was abandoned after an abort; how its cleanup ends concerns no one.
  });
}

/** `message` itself when deep-frozen, else a frozen clone with the same id (HOST.md §2.2 rule 4). */
function frozenUserMessage(message: UserMessage): UserMessage {
  return isDeepFrozen(message) ? message : freezeMessage(message);
}

/** The agent loop of one session (HOST.md §6). */
export class Agent implements HostAgent {
  readonly #session: Session;
  readonly #model: ModelClient;
  readonly #runtimeContext: RuntimeContextProvider | undefined;
  readonly #checkRequest: ((request: ModelRequest, session: Session) => void) | undefined;
  readonly #hooks = new HookRegistry();
  readonly #inbox = new Inbox();
  readonly #tools = new Map<string, ToolDefinition>();
  readonly #commands: CommandRuntime;
  readonly #sections = new SystemSections();
  readonly #disposers: Array<() => void | Promise<void>> = [];
  #drive: Promise<void> | undefined;
  #turn: AbortController | undefined;
  #storage: PluginStorage | undefined;

  constructor(options: AgentOptions) {
    this.#session = options.session;
    this.#model = options.model;
    this.#runtimeContext = options.runtimeContext;
    this.#checkRequest = options.checkRequest;
    this.#storage = options.storage;
    this.#commands = new CommandRuntime(this, (notification) => this.#emitNotification(notification));
  }

  /** The agent id: its session's id. */
  get id(): string {
    return this.#session.id;
  }

  /** The session this agent writes. */
  get session(): Session {
    return this.#session;
  }

  /** The model this agent dispatches to. */
  get model(): ModelClient {
    return this.#model;
  }

  /** True while a turn is open. */
  get running(): boolean {
    return this.#turn !== undefined;
  }

  /** The registered tools in registration order. */
  get tools(): readonly ToolDefinition[] {
    return [...this.#tools.values()];
  }

  /** The registered commands in registration order. */
  get commands(): readonly CommandDefinition[] {
    return this.#commands.definitions;
  }

  /** The plugin storage (HOST.md §11), or `undefined` while none is wired. */
  get storage(): PluginStorage | undefined {
    return this.#storage;
  }

  /** Subscribes to a host event or joins a waterfall (HOST.md §1); returns the unsubscribe function. */
  on<K extends HostHookName>(name: K, listener: HostHookMap[K], options?: ListenOptions): () => void {
    return this.#hooks.on(name, listener, options);
  }

  /** Adds a model tool; a second tool with the same name throws. */
  registerTool(definition: ToolDefinition): void {
    if (this.#tools.has(definition.name)) throw new Error(`tool "${definition.name}" is already registered`);
    this.#tools.set(definition.name, definition);
  }

  /** Adds a slash command (HOST.md §9 rule 1); a second command with the same name throws. */
  registerCommand(definition: CommandDefinition): void {
    this.#commands.register(definition);
  }

  /**
   * Runs a command line such as `/dcp stats` (HOST.md §9): `command/run`, the handler, `command/done`. The
   * result is for the human only. `source` is recorded in `command/run`; human input keeps the default.
   */
  runCommand(input: string, source: MessageSource = { kind: 'user' }): Promise<CommandResult> {
    return this.#commands.run(input, source);
  }

  /**
   * Wires storage that arrived late (HOST.md §11) and fires `storage/available` once. A second call throws.
   * Listener failures, synchronous or asynchronous, are contained: they never reach this caller or the loop.
   */
  provideStorage(storage: PluginStorage): void {
    if (this.#storage !== undefined) throw new Error('plugin storage is already available');
    this.#storage = storage;
    for (const listener of this.#hooks.listeners('storage/available')) {
      try {
        Promise.resolve(listener(storage)).catch(() => {
          // Storage failures stay with the plugin (HOST.md §11); plugin contexts log them before they get here.
        });
      } catch {
        // Same containment for a listener that throws synchronously.
      }
    }
  }

  /** Adds a system-prompt section (HOST.md §8). */
  registerSystemSection(section: SystemSection): void {
    this.#sections.register(section);
  }

  /** Registers cleanup; `dispose()` calls the functions in reverse order. */
  addDisposer(fn: () => void | Promise<void>): void {
    this.#disposers.push(fn);
  }

  /** Aborts a running turn with reason `disposed`, then runs the cleanup functions in reverse order. */
  async dispose(): Promise<void> {
    this.abort({ kind: 'disposed' });
    await this.runUntilIdle();
    while (this.#disposers.length > 0) await (this.#disposers.pop() as () => void | Promise<void>)();
  }

  /** Queues human input as a user message with `source {kind:'user'}` and returns it (HOST.md §6.1). */
  prompt(content: string | readonly ContentBlock[]): UserMessage {
    const blocks = typeof content === 'string' ? [{ type: 'text', text: content }] : content;
    // `content` before `source`, the key order dsh writes a prompt in (its log and requests are byte-compared).
    const message = createUserMessage({ content: blocks, source: { kind: 'user' } });
    this.followup(message);
    return message;
  }

  /** Queues `message` for a later turn. */
  followup(message: UserMessage): void {
    this.#inbox.followup(frozenUserMessage(message));
    this.#wake();
  }

  /** Queues `message` for the next step of the running turn; without a running turn it is a followup. */
  steer(message: UserMessage): void {
    if (!this.running) {
      this.followup(message);
      return;
    }
    this.#inbox.steer(frozenUserMessage(message));
  }

  /** Aborts the running turn's signal (HOST.md §6.2); does nothing when no turn runs. */
  abort(reason: TurnAbortReason = { kind: 'user' }): void {
    this.#turn?.abort(reason);
  }

  /** Resolves when the inbox is empty and no turn is running. */
  async runUntilIdle(): Promise<void> {
    while (this.#drive !== undefined) await this.#drive;
  }

  /** Starts the driver when the inbox is not empty and no turn runs. */
  #wake(): void {
    if (this.#drive !== undefined) return;
    // Deferred so that the caller's synchronous code (more prompts, listeners) runs before the turn starts.
    this.#drive = Promise.resolve()
      .then(() => this.#driveTurns())
      .finally(() => {
        this.#drive = undefined;
      });
  }

  async #driveTurns(): Promise<void> {
    while (this.#inbox.size > 0) {
      try {
        await this.#runTurn();
      } catch (error) {
        // A turn that cannot even be opened or closed is a host fault; queued messages wait for the next wake.
        this.#emitError({ error, turn: this.#session.highestTurn() ?? 0, step: 0, messages: [] });
        return;
      }
    }
  }

  /** One turn (HOST.md §6.2): `turn/start`, steps, `turn/end`. */
  async #runTurn(): Promise<void> {
    const turn = (this.#session.highestTurn() ?? 0) + 1;
    const controller = new AbortController();
    this.#session.append('turn/start', { turn });
    this.#turn = controller;
    try {
      // A command that queued this turn's input logs its `command/done` before the first pre-step, as dsh does.
      const settling = this.#commands.settleBeforeTurn();
      if (settling !== undefined) await settling;
      const reason = await this.#runSteps(turn, controller.signal);
      this.#session.append('turn/end', { turn, reason });
    } finally {
      this.#turn = undefined;
    }
  }

  /**
   * Pre-steps and steps until the turn ends; returns the turn-end reason. Each pre-step is given the step it is
   * about to enter, as dsh does (`phase.step + 1`): 1 at the turn's first pre-step (HOST.md §3.4, §6.2).
   */
  async #runSteps(turn: number, signal: AbortSignal): Promise<TurnEndReason> {
    for (let step = 1; ; step++) {
      if (signal.aborted) return { kind: 'aborted', reason: signal.reason as unknown };
      const first = step === 1;
      const claimed = first ? this.#inbox.claimAll() : this.#inbox.claimSteering();
      let decision: PreStepDecision;
      try {
        decision = await this.#preStep(turn, step, claimed, signal);
      } catch (error) {
        if (!signal.aborted) this.#emitError({ error, turn, step, messages: claimed });
        return turnEndReasonForStepFailure(error, signal);
      }
      if (signal.aborted) return { kind: 'aborted', reason: signal.reason as unknown };
      if (decision.kind === 'reject') return { kind: 'blocked' };
      if (first && decision.messages.length === 0) return { kind: 'completed' };
      const outcome = await this.#runStep(turn, step, decision.messages, signal);
      if (outcome.kind === 'end') return outcome.reason;
    }
  }

  /** Runs the waterfall, settling at once when the turn is aborted. */
  #preStep(turn: number, step: number, claimed: readonly UserMessage[], signal: AbortSignal): Promise<PreStepDecision> {
    const payload: PreStepPayload = Object.freeze({
      agent: this,
      session: this.#session,
      messages: Object.freeze([...claimed]),
      turn,
      step,
      signal,
    });
    const run = runPreStepWaterfall(this.#hooks.listeners('agent/pre-step'), payload, this.#runtimeContext);
    return raceWithSignal(run, signal);
  }

  /**
   * One step (HOST.md §6.2 steps 6–12). Failures after `step/start` that are not model failures (a decision
   * message the log refuses, a violated request invariant) close the step and end the turn with an error.
   */
  async #runStep(turn: number, step: number, messages: readonly UserMessage[], signal: AbortSignal): Promise<StepOutcome> {
    try {
      return await this.#enterStep(turn, step, messages, signal);
    } catch (error) {
      this.#emitError({ error, turn, step, messages });
      if (this.#session.openStep() !== null) this.#session.append('step/end', { turn, step });
      return { kind: 'end', reason: { kind: 'error', error: failureOf(error) } };
    }
  }

  async #enterStep(turn: number, step: number, messages: readonly UserMessage[], signal: AbortSignal): Promise<StepOutcome> {
    // One synchronous run: nothing else can be written between step/start and the last decision message.
    this.#session.append('step/start', { turn, step });
    for (const message of messages) this.#session.append('user/message', message, { surfaceOp: 'append' });
    const request = this.#composeRequest();
    assertRequestMatches(request, this.#session.deriveMessages(), this.#session.latestRequestHeader());
    this.#checkRequest?.(request, this.#session);
    return this.#dispatch(turn, step, request, signal);
  }

  /** Appends a new `request/header` when the composed one differs, then builds the request from the log. */
  #composeRequest(): ModelRequest {
    const header = composeRequestHeader(this.#model.provider, this.#model.model, this.#sections.render(), this.tools);
    const latest = this.#session.latestRequestHeader();
    if (latest === undefined) this.#session.append('request/header', { header, reason: 'initial' });
    else if (!jsonEqual(latest, header)) this.#session.append('request/header', { header });
    // The header just composed (or an equal one already logged): this agent wrote its system text and tools.
    const logged = this.#session.latestRequestHeader() as RequestHeader;
    return {
      system: logged.system,
      tools: logged.tools,
      messages: this.#session.deriveMessages(),
    };
  }

  /** Streams the reply, logs chunks and the message, runs the tools and closes the step. */
  async #dispatch(turn: number, step: number, request: ModelRequest, signal: AbortSignal): Promise<StepOutcome> {
    const assembler = new AssistantStreamAssembler();
    const chunkSeqs: number[] = [];
    let streamError: { readonly error: unknown } | undefined;
    try {
      await this.#consumeStream(turn, step, request, signal, assembler, chunkSeqs);
    } catch (error) {
      streamError = { error };
    }
    if (signal.aborted) return this.#endAborted(turn, step, assembler, chunkSeqs, signal);
    const failure = streamError !== undefined ? failureOf(streamError.error) : this.#finishFailure(assembler);
    if (failure !== undefined) {
      // The streamed prefix stays in the chunk log only: no message, so no tool call is left unpaired.
      this.#session.append('step/end', { turn, step });
      return { kind: 'end', reason: { kind: 'error', error: failure } };
    }
    const message = this.#logAssistantMessage(turn, step, assembler, chunkSeqs, false);
    const calls = AssistantStreamAssembler.toolCalls(message.content);
    if (calls.length > 0) await this.#runTools(turn, step, calls, signal);
    this.#session.append('step/end', { turn, step });
    if (signal.aborted) return { kind: 'end', reason: { kind: 'aborted', reason: signal.reason as unknown } };
    return calls.length > 0 ? CONTINUE : { kind: 'end', reason: { kind: 'completed' } };
  }

  /**
   * Logs every chunk of the stream as `assistant/chunk` and feeds the logged (frozen) chunk to the assembler.
   * Each read is raced against the signal, so a model that ignores the abort cannot hold the turn open; the
   * abandoned stream is closed without waiting for it.
   */
  async #consumeStream(
    turn: number,
    step: number,
    request: ModelRequest,
    signal: AbortSignal,
    assembler: AssistantStreamAssembler,
    chunkSeqs: number[],
  ): Promise<void> {
    const iterator = this.#model.stream(request, { signal })[Symbol.asyncIterator]();
    for (;;) {
      let next: IteratorResult<ModelChunk>;
      try {
        next = await raceWithSignal(iterator.next(), signal);
      } catch (error) {
        if (signal.aborted) closeQuietly(iterator);
        throw error;
      }
      if (next.done === true) return;
      const event = this.#session.append('assistant/chunk', { turn, step, chunk: next.value });
      chunkSeqs.push(event.seq);
      assembler.accept(event.data.chunk as ModelChunk);
    }
  }

  /** The provider failure of a `finish` chunk with `reason.kind === 'error'`, if any. */
  #finishFailure(assembler: AssistantStreamAssembler): ModelFailure | undefined {
    const reason = assembler.finish?.reason;
    if (reason?.kind !== 'error') return undefined;
    return reason.failure ?? { message: 'model stream finished with an error', code: 'UNKNOWN' };
  }

  /** Abort mid-stream: the streamed prefix (if any) as an interrupted message, aborted results, step end. */
  async #endAborted(
    turn: number,
    step: number,
    assembler: AssistantStreamAssembler,
    chunkSeqs: readonly number[],
    signal: AbortSignal,
  ): Promise<StepOutcome> {
    if (assembler.hasBlocks) {
      const message = this.#logAssistantMessage(turn, step, assembler, chunkSeqs, true);
      const calls = AssistantStreamAssembler.toolCalls(message.content);
      // The signal is aborted, so the runner logs `tool call aborted` for every call without executing any.
      if (calls.length > 0) await this.#runTools(turn, step, calls, signal);
    }
    this.#session.append('step/end', { turn, step });
    return { kind: 'end', reason: { kind: 'aborted', reason: signal.reason as unknown } };
  }

  #logAssistantMessage(
    turn: number,
    step: number,
    assembler: AssistantStreamAssembler,
    chunkSeqs: readonly number[],
    interrupted: boolean,
  ): Message {
    const replayState = assembler.finish?.replayState;
    // Key order is dsh's (its logs are byte-compared): source {kind, provider, model, replayState?},
    // message {role, content, source, id}, data {turn, step, message, usage?, interrupted?}.
    const source: MessageSource = {
      kind: 'model',
      provider: this.#model.provider,
      model: this.#model.model,
      ...(replayState === undefined ? {} : { replayState }),
    };
    const message: Message = { role: 'assistant', content: assembler.blocks(), source, id: randomUUID() };
    const data: AssistantMessageData = {
      turn,
      step,
      message,
      ...(assembler.usage === undefined ? {} : { usage: assembler.usage }),
      ...(interrupted ? { interrupted: true } : {}),
    };
    const options = chunkSeqs.length > 0 ? { sourceEventSeqs: [...chunkSeqs], surfaceOp: 'append' } : { surfaceOp: 'append' };
    return this.#session.append('assistant/message', data, options).data.message;
  }

  #runTools(turn: number, step: number, calls: readonly ToolCallBlock[], signal: AbortSignal): Promise<void> {
    const runner = new ToolRunner(
      {
        agent: this,
        session: this.#session,
        turn,
        step,
        signal,
        tools: this.#tools,
        approveListeners: this.#hooks.listeners('tool/approve'),
      },
      calls,
    );
    return runner.run();
  }

  /** Delivers a command notification to the human's `command/notify` listeners; a throwing listener is dropped. */
  #emitNotification(notification: CommandNotification): void {
    for (const listener of this.#hooks.listeners('command/notify')) {
      try {
        listener(notification);
      } catch {
        // A notification is display only; a failing display listener must not fail the command that notified.
      }
    }
  }

  /** Reports a runtime failure to `agent/error` listeners; a throwing listener cannot break the loop. */
  #emitError(event: AgentErrorEvent): void {
    for (const listener of this.#hooks.listeners('agent/error')) {
      try {
        listener(event);
      } catch {
        // Error reporting must not fail the loop that is reporting; the listener's own fault is dropped.
      }
    }
  }
}
