/**
 * A Gantt chart of every attempt: one row per step, a bar per attempt from its start to its return,
 * so parallelism (bars stacked in time), retries (several bars in a row) and waiting (the gap before
 * a step's first bar) are visible at a glance.
 */
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { RunView } from '../../client';

/** The least room a tick's label gets: ticks are thinned to fit the axis (at 390 px they overlapped). */
const TICK_PX = 90;

export function Timeline({ view, now }: { view: RunView; now: number }) {
  const axis = useRef<HTMLDivElement>(null);
  const [axisWidth, setAxisWidth] = useState(4 * TICK_PX);
  const attempts = view.steps.flatMap((s) => s.history);
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
  const rows = view.steps.filter((s) => s.history.length > 0);
  return (
    <div class="timeline" role="table" aria-label="Attempts over time">
      <div class="tl-axis" aria-hidden="true" ref={axis}>
        {ticks.map((t) => (
          <span key={t.at} style={{ left: t.at }}>
            {t.label}
          </span>
        ))}
      </div>
      {rows.map((s) => (
        <div class="tl-row" role="row" key={s.id} data-step-id={s.id}>
          <span class="tl-label" role="rowheader">
            {s.id}
          </span>
          <span class="tl-track" role="cell">
            {s.history.map((a) => {
              const outcome =
                a.success === null ? (a.ended_at === null ? 'running' : 'lost') : a.success ? 'ok' : 'failed';
              const stop = a.ended_at ?? now;
              return (
                <span
                  key={`${a.attempt}-${a.started_at}`}
                  class={`tl-bar ${outcome}`}
                  style={{ left: pct(a.started_at), width: width(a.started_at, stop) }}
                  title={`${s.id} attempt ${a.attempt} (${a.tool}): ${outcome}, ${Math.round(stop - a.started_at)} ms`}
                />
              );
            })}
          </span>
        </div>
      ))}
    </div>
  );
}
