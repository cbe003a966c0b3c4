/**
 * Hash routing: every view has an address (`#/`, `#/session/<id>`, `#/session/<id>/message/<seq>`,
 * `#/compose[/<target>]`, `#/context/<id>`), so reload, back and forward work and the server needs no fallback route.
 * Session ids are percent-encoded (so a `/` after one starts the message anchor).
 */
import { useEffect, useState } from 'preact/hooks';

/** A view and what it shows (a closed union on `view`). */
export type Route =
  | { readonly view: 'sessions' }
  | { readonly view: 'session'; readonly sessionId: string /** The message to scroll to and highlight. */; readonly seq?: number }
  | { readonly view: 'compose'; readonly target?: string }
  | { readonly view: 'context'; readonly sessionId: string };

function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    // A hand-edited address with a broken escape: treated as no id, so the Sessions view shows instead.
    return undefined;
  }
}

/**
 * The route of a location hash.
 *
 * @param hash `location.hash` (with or without its `#`)
 * @returns the route; anything unknown is the Sessions view
 */
export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '');
  const [, head, rest] = /^\/([^/]*)\/?(.*)$/.exec(path) ?? [];
  const [idSegment, anchor, seqText] = (rest ?? '').split('/');
  const id = idSegment === undefined || idSegment === '' ? undefined : decodeSegment(idSegment);
  switch (head) {
    case 'session': {
      if (id === undefined) return { view: 'sessions' };
      const seq = anchor === 'message' && /^\d+$/.test(seqText ?? '') ? Number(seqText) : undefined;
      return seq === undefined ? { view: 'session', sessionId: id } : { view: 'session', sessionId: id, seq };
    }
    case 'context':
      return id === undefined ? { view: 'sessions' } : { view: 'context', sessionId: id };
    case 'compose':
      return id === undefined ? { view: 'compose' } : { view: 'compose', target: id };
    default:
      return { view: 'sessions' };
  }
}

/**
 * The address of a route.
 *
 * @param route the route
 * @returns a `#/…` href
 */
export function hrefOf(route: Route): string {
  switch (route.view) {
    case 'sessions':
      return '#/';
    case 'session':
      return `#/session/${encodeURIComponent(route.sessionId)}${route.seq === undefined ? '' : `/message/${route.seq}`}`;
    case 'context':
      return `#/context/${encodeURIComponent(route.sessionId)}`;
    case 'compose':
      return route.target === undefined ? '#/compose' : `#/compose/${encodeURIComponent(route.target)}`;
    default: {
      const never: never = route;
      throw new TypeError(`unknown route ${JSON.stringify(never)}`);
    }
  }
}

/** The current route, following `hashchange`. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const onChange = (): void => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}
