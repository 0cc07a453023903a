/**
 * The run's events, filterable by type and step; the newest last. The last 500 are drawn, earlier ones
 * 500 more at a time (or all) on request; each row shows the start of its payload, and opens to the
 * whole event as JSON (the start of a huge one, and the whole as a download: json-block.tsx).
 */
import { useMemo, useState } from 'preact/hooks';
import { JsonBlock } from './json-block';
import type { RunEvent } from '../../client';
import { eventDetail } from '../../client/event-detail';
import { visibleJson, visibleText } from '../visible-text';
import { textStart } from '../../text-cut';

/** Rows drawn at first, and added by "earlier". */
const PAGE = 500;
/** The characters of a payload a closed row shows. */
const CUT = 240;

export function EventLog({ events }: { events: RunEvent[] }) {
  const [type, setType] = useState('');
  const [step, setStep] = useState('');
  const [limit, setLimit] = useState(PAGE);
  const [open, setOpen] = useState<ReadonlySet<number>>(new Set());
  const types = [...new Set(events.map((e) => e.event_type))].sort();
  const stepOf = (e: RunEvent) => (e.payload as { step_id?: string }).step_id ?? e.references.step_id ?? '';
  const steps = [...new Set(events.map(stepOf).filter(Boolean))].sort();
  const shown = events.filter((e) => (!type || e.event_type === type) && (!step || stepOf(e) === step));
  const hidden = Math.max(0, shown.length - limit);
  const toggle = (seq: number) =>
    setOpen((o) => {
      const next = new Set(o);
      if (!next.delete(seq)) next.add(seq);
      return next;
    });
  return (
    <section class="event-log">
      <div class="filters">
        <label>
          Type{' '}
          <select value={type} onChange={(ev) => setType((ev.target as HTMLSelectElement).value)}>
            <option value="">all</option>
            {types.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        </label>
        <label>
          Step{' '}
          <select value={step} onChange={(ev) => setStep((ev.target as HTMLSelectElement).value)}>
            <option value="">all</option>
            {steps.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <span class="muted">
          {shown.length} of {events.length} events
          {hidden ? ` · the last ${shown.length - hidden} shown` : ''}
          {/* The events' own times: UTC, as the API gives them (the page's clock may be anywhere). */}
          {' · times UTC'}
        </span>
      </div>
      {hidden ? (
        <p class="earlier">
          <button type="button" onClick={() => setLimit((l) => l + PAGE)}>
            Show {Math.min(PAGE, hidden)} earlier events
          </button>{' '}
          {hidden > PAGE ? (
            <button type="button" onClick={() => setLimit(Number.POSITIVE_INFINITY)}>
              Show all {shown.length}
            </button>
          ) : null}
        </p>
      ) : null}
      <ol class="events">
        {shown.slice(hidden).map((e) => (
          <EventRow key={e.seq} event={e} step={stepOf(e)} open={open.has(e.seq)} onToggle={toggle} />
        ))}
      </ol>
    </section>
  );
}

function EventRow({
  event: e,
  step,
  open,
  onToggle,
}: {
  event: RunEvent;
  step: string;
  open: boolean;
  onToggle: (seq: number) => void;
}) {
  // Once per event, not per redraw: a step's output may take megabytes.
  const payload = useMemo(() => visibleJson(JSON.stringify(e.payload) ?? ''), [e]);
  // An elided payload has none of its fields: nothing to say but its JSON.
  const detail = useMemo(() => ('$elided' in e.payload ? '' : visibleText(eventDetail(e))), [e]);
  return (
    <li data-event-type={e.event_type} class={open ? 'open' : undefined}>
      <button
        type="button"
        class="seq"
        aria-expanded={open}
        aria-label={`Event ${e.seq} in full`}
        title={open ? 'Close' : 'The whole event'}
        onClick={() => onToggle(e.seq)}
      >
        <span aria-hidden="true">{open ? '▾' : '▸'}</span> {e.seq}
      </button>
      <time class="time" dateTime={e.timestamp} title={e.timestamp}>
        {e.timestamp.slice(11, 23)}
      </time>
      <span class="type">{e.event_type}</span>
      <span class="step">{step}</span>
      {/* What it says in words first (why a plan changed, who approved): the JSON's start was a plan's id. */}
      <span class="detail">
        {detail ? <span class="summary">{detail}</span> : null}
        <code class="payload">
          {payload.length > CUT
            ? `${textStart(payload, CUT)}… (${payload.length.toLocaleString()} chars)`
            : payload}
        </code>
      </span>
      {open ? <JsonBlock value={e} file={`event-${e.seq}.json`} /> : null}
    </li>
  );
}
