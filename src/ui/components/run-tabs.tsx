/** A run page's tabs: each a link (`#/runs/<id>/<tab>`), so a tab can be bookmarked and shared. */
import { href } from '../router';

export const RUN_TABS = [
  ['graph', 'Graph'],
  ['timeline', 'Timeline'],
  ['events', 'Events'],
  ['versions', 'Versions'],
  ['planning', 'Planning'],
] as const;

export function RunTabs({ runId, tab }: { runId: string; tab: string }) {
  return (
    <nav class="tabs" role="tablist">
      {RUN_TABS.map(([id, label]) => (
        <a
          key={id}
          role="tab"
          aria-selected={tab === id}
          class={tab === id ? 'active' : ''}
          href={href.run(runId, id)}
        >
          {label}
        </a>
      ))}
    </nav>
  );
}
