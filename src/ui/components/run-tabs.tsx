/**
 * A run page's tabs: each a link (`#/runs/<id>/<tab>`), so a tab can be bookmarked and shared. A tab
 * list as assistive technology announces it, so one as it is used: the arrow keys, Home and End move
 * to a tab and open it, and Tab leaves the list from the open tab (the others out of the tab order).
 */
import type { JSX } from 'preact';
import { href, navigate } from '../router';

export const RUN_TABS = [
  ['graph', 'Graph'],
  ['timeline', 'Timeline'],
  ['events', 'Events'],
  ['versions', 'Versions'],
  ['planning', 'Planning'],
] as const;

/** The tab a key moves to from tab `i` of `n`, or null for a key that moves nowhere. */
function target(key: string, i: number, n: number): number | null {
  if (key === 'ArrowRight') return (i + 1) % n;
  if (key === 'ArrowLeft') return (i - 1 + n) % n;
  if (key === 'Home') return 0;
  if (key === 'End') return n - 1;
  return null;
}

export function RunTabs({ runId, tab }: { runId: string; tab: string }) {
  const onKeyDown = (i: number) => (e: JSX.TargetedKeyboardEvent<HTMLAnchorElement>) => {
    const to = target(e.key, i, RUN_TABS.length);
    if (to === null) return;
    e.preventDefault();
    (e.currentTarget.parentElement?.children[to] as HTMLElement | undefined)?.focus();
    navigate(href.run(runId, RUN_TABS[to]![0]));
  };
  return (
    <nav class="tabs" role="tablist" aria-label="Run views">
      {RUN_TABS.map(([id, label], i) => (
        <a
          key={id}
          role="tab"
          aria-selected={tab === id}
          tabindex={tab === id ? 0 : -1}
          class={tab === id ? 'active' : ''}
          href={href.run(runId, id)}
          onKeyDown={onKeyDown(i)}
        >
          {label}
        </a>
      ))}
    </nav>
  );
}
