/**
 * The host events and waterfalls a plugin can join through `on(name, listener, {prepend?})` (HOST.md §1):
 * waterfalls run their listeners in list order, so `prepend: true` makes a listener the outermost.
 */
import type { CommandNotification } from './command-runtime.js';
import type { PreStepListener } from './pre-step-waterfall.js';
import type { PluginStorage } from './storage/plugin-storage.js';
import type { ToolApproveListener } from './tool-definition.js';
import type { UserMessage } from '../../protocol/user-message.js';

/**
 * A runtime failure report (never logged, never model-visible). For a pre-step failure `error` is what the
 * listener threw (a `SessionReferenceError` carries `claimedDirectMessages`) and `messages` are the messages
 * claimed for that step, which the loop does not re-queue.
 */
export interface AgentErrorEvent {
  readonly error: unknown;
  readonly turn: number;
  /** The pre-step index (0 = first pre-step) or, after `step/start`, the step number. */
  readonly step: number;
  readonly messages: readonly UserMessage[];
}

/** Every name `on` accepts, with its listener type. */
export interface HostHookMap {
  'agent/pre-step': PreStepListener;
  'tool/approve': ToolApproveListener;
  'agent/error': (event: AgentErrorEvent) => void;
  /** A command's text for the human (HOST.md §9 rule 4); never logged, never model-visible. */
  'command/notify': (notification: CommandNotification) => void;
  /**
   * Storage appeared (HOST.md §11). Fires once, for listeners registered before it appeared; later listeners
   * read `storage` directly. A listener's failure stays with that listener.
   */
  'storage/available': (storage: PluginStorage) => void | Promise<void>;
}

/** A host hook name. */
export type HostHookName = keyof HostHookMap;

/** `on` options. */
export interface ListenOptions {
  /** Put the listener in front of the list (the outermost waterfall position). */
  readonly prepend?: boolean;
}

/** Listener lists by hook name. */
export class HookRegistry {
  readonly #lists = new Map<HostHookName, unknown[]>();

  /** Adds `listener` to `name`'s list; returns the function that removes it. */
  on<K extends HostHookName>(name: K, listener: HostHookMap[K], options: ListenOptions = {}): () => void {
    let list = this.#lists.get(name);
    if (list === undefined) {
      list = [];
      this.#lists.set(name, list);
    }
    if (options.prepend === true) list.unshift(listener);
    else list.push(listener);
    const owner = list;
    return () => {
      const index = owner.indexOf(listener);
      if (index !== -1) owner.splice(index, 1);
    };
  }

  /** A snapshot of `name`'s listeners in call order (outermost first). */
  listeners<K extends HostHookName>(name: K): HostHookMap[K][] {
    return [...(this.#lists.get(name) ?? [])] as HostHookMap[K][];
  }
}
