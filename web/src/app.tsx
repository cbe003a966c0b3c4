/** The page's frame: the navigation and the routed view. */
import type { JSX } from 'preact';
import { useEffect } from 'preact/hooks';
import { LiveStatus } from './live/live-status.js';
import { hrefOf, type Route, useRoute } from './router.js';
import { ComposeView } from './views/compose-view.js';
import { ContextView } from './views/context-view.js';
import { SessionView } from './views/session-view.js';
import { SessionsView } from './views/sessions-view.js';

function View({ route }: { route: Route }): JSX.Element {
  switch (route.view) {
    case 'sessions':
      return <SessionsView />;
    case 'session':
      return <SessionView sessionId={route.sessionId} {...(route.seq === undefined ? {} : { seq: route.seq })} />;
    case 'compose':
      return <ComposeView target={route.target} />;
    case 'context':
      return <ContextView sessionId={route.sessionId} />;
    default: {
      const never: never = route;
      throw new TypeError(`unknown route ${JSON.stringify(never)}`);
    }
  }
}

/** Keyboard shortcuts of the whole page: `/` finds a session, `c` composes, `g` goes to the sessions. */
function useShortcuts(): void {
  useEffect(() => {
    const onKey = (event: KeyboardEvent): void => {
      if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
      const target = event.target;
      if (target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
      if (event.key === '/') {
        event.preventDefault();
        if (location.hash !== '' && location.hash !== '#/') location.hash = hrefOf({ view: 'sessions' });
        requestAnimationFrame(() => document.getElementById('session-filter')?.focus());
      } else if (event.key === 'c') {
        location.hash = hrefOf({ view: 'compose' });
        requestAnimationFrame(() => document.getElementById('message')?.focus());
      } else if (event.key === 'g') {
        location.hash = hrefOf({ view: 'sessions' });
      }
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);
}

/** The whole page. */
export function App(): JSX.Element {
  const route = useRoute();
  useShortcuts();
  useEffect(() => {
    const names: Record<Route['view'], string> = { sessions: 'Sessions', session: 'Session', compose: 'Compose', context: 'Context' };
    document.title = `${names[route.view]} · sessionctx`;
  }, [route]);
  const current = (view: Route['view']): 'page' | undefined => (route.view === view ? 'page' : undefined);
  return (
    <>
      <header class="top">
        <span class="brand">sessionctx</span>
        <nav aria-label="Views">
          <a href={hrefOf({ view: 'sessions' })} aria-current={current('sessions')}>
            Sessions
          </a>
          <a href={hrefOf({ view: 'compose' })} aria-current={current('compose')}>
            Compose
          </a>
        </nav>
        <LiveStatus />
      </header>
      <div id="content" tabIndex={-1}>
        <View route={route} />
      </div>
    </>
  );
}
