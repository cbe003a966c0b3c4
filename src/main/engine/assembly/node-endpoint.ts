/**
 * comlink speaks the DOM's `postMessage`/`addEventListener` shape; Node's `Worker` and `parentPort` are
 * event emitters that deliver the message itself instead of a `MessageEvent`. This adapter bridges them.
 */
import type { Endpoint } from 'comlink';

/** The part of a Node `Worker` / `MessagePort` the adapter uses. */
export interface NodeMessageTarget {
  postMessage(message: unknown, transfer?: readonly unknown[]): void;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  off(event: 'message', listener: (message: unknown) => void): unknown;
}

type DomListener = ((event: { data: unknown }) => void) | { handleEvent(event: { data: unknown }): void };

/** A comlink endpoint over a Node message target. */
export function nodeEndpoint(target: NodeMessageTarget): Endpoint {
  const listeners = new WeakMap<object, (message: unknown) => void>();
  return {
    postMessage: (message: unknown, transfer?: readonly unknown[]) => target.postMessage(message, transfer),
    addEventListener: (_type: string, listener: unknown) => {
      const domListener = listener as DomListener;
      const bridged = (message: unknown): void => {
        if (typeof domListener === 'function') domListener({ data: message });
        else domListener.handleEvent({ data: message });
      };
      listeners.set(domListener, bridged);
      target.on('message', bridged);
    },
    removeEventListener: (_type: string, listener: unknown) => {
      const bridged = listeners.get(listener as object);
      if (bridged === undefined) return;
      target.off('message', bridged);
      listeners.delete(listener as object);
    },
  } as Endpoint;
}
