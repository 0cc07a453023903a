/** How an agentic run got where it is: a ReAct run's thoughts and a staged run's stages. */
import type { RunEvent } from '../../client';

/** A ReAct run's thoughts (each with its action) and a staged run's stages, in order. */
export function Reasoning({ events }: { events: RunEvent[] }) {
  const lines = events.flatMap((e) => {
    if (e.event_type === 'ThoughtAdded')
      return [
        {
          seq: e.seq,
          kind: `thought ${e.payload.turn}`,
          text: e.payload.thought,
          act: e.payload.step_id ?? 'done',
        },
      ];
    if (e.event_type === 'StageStarted')
      return [
        {
          seq: e.seq,
          kind: e.payload.rewind ? 'stage (rewind)' : 'stage',
          text: e.payload.stage,
          act: e.payload.rule ?? '',
        },
      ];
    return [];
  });
  if (lines.length === 0) return null;
  return (
    <>
      <h2>{events.some((e) => e.event_type === 'ThoughtAdded') ? 'Thoughts' : 'Stages'}</h2>
      <ol class="reasoning" aria-label="Reasoning">
        {lines.map((l) => (
          <li key={l.seq}>
            <span class="muted">{l.kind}</span> {l.text} {l.act ? <code>→ {l.act}</code> : null}
          </li>
        ))}
      </ol>
    </>
  );
}
