/**
 * A Gantt chart of every attempt: one row per step, a bar per attempt from its start to its return,
 * so parallelism (bars stacked in time), retries (several bars in a row) and waiting (the gap before
 * a step's first bar) are visible at a glance. A step a later plan version replaced keeps its row,
 * marked with the version that replaced it, above the current plan's rows — its failed attempts are
 * part of what the run did.
 */
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { replacedText, type AttemptView, type RunView } from '../../client';
import { visibleText } from '../visible-text';

/** The least room a tick's label gets: ticks are thinned to fit the axis (at 390 px they overlapped). */
const TICK_PX = 90;

export function Timeline({ view, now }: { view: RunView; now: number }) {
  const axis = useRef<HTMLDivElement>(null);
  const [axisWidth, setAxisWidth] = useState(4 * TICK_PX);
  const replaced = view.replaced.filter((r) => r.history.length > 0);
  const attempts = [...replaced, ...view.steps].flatMap((s) => s.history);
  const drawn = attempts.length > 0;
  useLayoutEffect(() => {
    const el = axis.current;
    if (!el) return;
    setAxisWidth(el.clientWidth);
    const seen = new ResizeObserver(() => setAxisWidth(el.clientWidth));
    seen.observe(el);
    return () => seen.disconnect();
  }, [drawn]);
  if (!drawn) return <p class="muted">No attempts yet.</p>;
  const start = Math.min(view.started_at ?? Infinity, ...attempts.map((a) => a.started_at));
  const end = Math.max(view.ended_at ?? 0, ...attempts.map((a) => a.ended_at ?? now));
  const span = Math.max(1, end - start);
  const pct = (t: number) => `${(((t - start) / span) * 100).toFixed(3)}%`;
  const width = (a: number, b: number) => `${Math.max(0.4, ((b - a) / span) * 100).toFixed(3)}%`;
  const intervals = Math.max(1, Math.min(4, Math.floor(axisWidth / TICK_PX)));
  const ticks = Array.from({ length: intervals + 1 }, (_, i) => i / intervals).map((f) => ({
    at: `${f * 100}%`,
    // A short run in milliseconds: "0.00 s, 0.00 s, 0.01 s" told nothing.
    label: span < 2000 ? `${Math.round(f * span)} ms` : `${((f * span) / 1000).toFixed(2)} s`,
  }));
  const rows = [
    ...replaced.map((r, i) => ({
      key: `replaced-${i}`,
      id: r.id,
      history: r.history,
      replaced: replacedText(r),
      version: r.plan_version,
    })),
    ...view.steps
      .filter((s) => s.history.length > 0)
      .map((s) => ({ key: s.id, id: s.id, history: s.history, replaced: null, version: null })),
  ];
  // Where a later plan version took over: the replaced rows' bars end before it.
  const changes = view.versions.filter((v) => v.kind !== 'authored' && v.at >= start && v.at <= end);
  const bar = (id: string, a: AttemptView) => {
    const outcome =
      a.success === null ? (a.ended_at === null ? 'running' : 'lost') : a.success ? 'ok' : 'failed';
    const stop = a.ended_at ?? now;
    const error = a.error ? ` — ${a.error.code}: ${a.error.message}` : '';
    return (
      <span
        key={`${a.attempt}-${a.started_at}`}
        class={`tl-bar ${outcome}`}
        style={{ left: pct(a.started_at), width: width(a.started_at, stop) }}
        title={`${id} attempt ${a.attempt} (${a.tool}): ${outcome}, ${Math.round(stop - a.started_at)} ms${error}`}
      />
    );
  };
  return (
    <div class="timeline" role="table" aria-label="Attempts over time">
      <div class="tl-axis" aria-hidden="true" ref={axis}>
        {ticks.map((t) => (
          <span key={t.at} style={{ left: t.at }}>
            {t.label}
          </span>
        ))}
      </div>
      {changes.length > 0 ? (
        <div class="tl-row tl-versions" role="row">
          <span class="tl-label" role="rowheader">
            plan versions
          </span>
          <span class="tl-track" role="cell">
            {changes.map((v) => (
              <span
                key={`${v.version}-${v.at}`}
                class="tl-mark"
                data-plan-version={v.version ?? ''}
                style={{ left: pct(v.at) }}
                title={visibleText(`v${v.version ?? '?'} (${v.kind}): ${v.reason}`)}
              >
                v{v.version ?? '?'}
              </span>
            ))}
          </span>
        </div>
      ) : null}
      {rows.map((r) => (
        <div
          class={`tl-row${r.replaced ? ' replaced' : ''}`}
          role="row"
          key={r.key}
          data-step-id={r.id}
          {...(r.replaced ? { 'data-replaced': 'true', 'data-plan-version': String(r.version ?? '') } : {})}
        >
          <span class="tl-label" role="rowheader">
            {r.id}
            {r.replaced ? <span class="tl-version"> v{r.version ?? '?'}</span> : null}
          </span>
          <span class="tl-track" role="cell">
            {r.history.map((a) => bar(r.id, a))}
          </span>
          {/* The whole of why, under its bars: cut in the label, the reason was the part lost. */}
          {r.replaced ? (
            <span class="tl-note" role="cell">
              replaced: {visibleText(r.replaced)}
            </span>
          ) : null}
        </div>
      ))}
    </div>
  );
}
