import type { HostHookMap, HostHookName, ListenOptions } from '../../host-api/host-api.js';

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
