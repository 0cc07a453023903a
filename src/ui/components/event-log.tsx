/** The run's events, filterable by type and step; the newest last, the last 500 shown. */
import { useState } from 'preact/hooks';
import type { RunEvent } from '../../client';

const SHOWN = 500;

export function EventLog({ events }: { events: RunEvent[] }) {
  const [type, setType] = useState('');
  const [step, setStep] = useState('');
  const types = [...new Set(events.map((e) => e.event_type))].sort();
  const stepOf = (e: RunEvent) => (e.payload as { step_id?: string }).step_id ?? e.references.step_id ?? '';
  const steps = [...new Set(events.map(stepOf).filter(Boolean))].sort();
  const shown = events.filter((e) => (!type || e.event_type === type) && (!step || stepOf(e) === step));
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
        </span>
      </div>
      <ol class="events">
        {shown.slice(-SHOWN).map((e) => (
          <li key={e.seq} data-event-type={e.event_type}>
            <span class="seq">{e.seq}</span>
            <span class="time">{e.timestamp.slice(11, 23)}</span>
            <span class="type">{e.event_type}</span>
            <span class="step">{stepOf(e)}</span>
            <code class="payload">{JSON.stringify(e.payload).slice(0, 240)}</code>
          </li>
        ))}
      </ol>
    </section>
  );
}
