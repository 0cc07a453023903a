/** Hash routes: `#/` runs, `#/runs/<id>`, `#/new`. */
import { useEffect, useState } from 'preact/hooks';

export type Route = { page: 'runs' } | { page: 'run'; runId: string; tab: string } | { page: 'new' };

/** The run page's tabs, the first the default. */
export const RUN_TABS: readonly string[] = ['graph', 'timeline', 'events', 'versions', 'planning'];

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] === 'runs' && parts[1]) {
    // An unknown tab (a mistyped or old link) shows the graph rather than nothing.
    const tab = parts[2] && RUN_TABS.includes(parts[2]) ? parts[2] : 'graph';
    return { page: 'run', runId: parts[1], tab };
  }
  if (parts[0] === 'new') return { page: 'new' };
  return { page: 'runs' };
}

export const href = {
  runs: () => '#/',
  run: (runId: string, tab?: string) => `#/runs/${encodeURIComponent(runId)}${tab ? `/${tab}` : ''}`,
  newRun: () => '#/new',
};

export function navigate(to: string): void {
  location.hash = to;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const on = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}
