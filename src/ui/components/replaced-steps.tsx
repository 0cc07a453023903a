/**
 * The steps later plan versions replaced, drawn under the graph of the current plan: faded, dashed
 * nodes each saying which version replaced it and why, with its last status and attempts. Click one
 * for its attempts and error in the step panel. The graph above stays the plan that runs.
 */
import { replacedStatus, replacedText, type ReplacedStep } from '../../client';
import { visibleText } from '../visible-text';

/** The selection key of the `i`th replaced step: `@` cannot start a step id, so none collides. */
export const replacedKey = (i: number) => `@${i}`;

/** The replaced step a selection key names, or null. */
export function replacedAt(replaced: readonly ReplacedStep[], key: string | null): ReplacedStep | null {
  if (!key?.startsWith('@')) return null;
  return replaced[Number(key.slice(1))] ?? null;
}

export function ReplacedSteps({
  replaced,
  selected,
  onSelect,
}: {
  replaced: readonly ReplacedStep[];
  selected: string | null;
  onSelect: (key: string) => void;
}) {
  if (replaced.length === 0) return null;
  return (
    <section class="replaced-steps" aria-labelledby="replaced-steps-title">
      <h3 id="replaced-steps-title">
        Replaced by a later plan version <span class="muted">({replaced.length})</span>
      </h3>
      <ul>
        {replaced.map((r, i) => {
          const key = replacedKey(i);
          const tries = r.history.length;
          return (
            <li key={key}>
              <button
                type="button"
                class={`replaced-step status-${r.status}${selected === key ? ' selected' : ''}`}
                data-replaced-step={r.id}
                data-status={r.status}
                data-plan-version={r.plan_version ?? ''}
                data-replaced-by={r.replaced_by.version ?? ''}
                aria-pressed={selected === key}
                onClick={() => onSelect(key)}
              >
                <span class="replaced-head">
                  <code class="node-id">{r.id}</code> <code class="muted">{r.action}</code>{' '}
                  <span class={`badge status-${r.status}`}>{replacedStatus(r)}</span>
                  {tries > 0 ? (
                    <span class="muted"> · {tries === 1 ? '1 attempt' : `${tries} attempts`}</span>
                  ) : null}
                </span>
                <span class="replaced-why">{visibleText(replacedText(r))}</span>
                {/* The error once: a revision's reason usually quotes it. */}
                {r.error && !r.replaced_by.reason.includes(r.error) ? (
                  <span class="replaced-error">{visibleText(r.error)}</span>
                ) : null}
              </button>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
