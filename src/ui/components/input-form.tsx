/**
 * The answer a run waits for (`POST /v1/runs/:id/input`), in the form the run reads it:
 * - a `human.input` step: the answer is the step's output — JSON when it parses, else the text as typed;
 * - `ask_user` about a failed step: `{"action": "retry" | "skip" | "replan" | "abort"}` (the run retries
 *   on anything else, plain `skip` included), one button each, with optional new information — a JSON
 *   object whose keys go into the run's state.
 * A `human.input` question says when it is due and what happens then if nobody answers (its
 * `InputRequested`'s deadline); `ask_user`'s waits without a limit.
 * An answer is sent once: from the first click the buttons are disabled, and they stay so once it is
 * accepted (a second answer would be new information, or a 409 once the run has ended).
 */
import type { ComponentChildren } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { inputDeadlineText } from '../../client';
import { visibleText } from '../visible-text';
import { jsonText } from './json-block';

type Action = 'retry' | 'skip' | 'replan' | 'abort';

const ACTIONS: { action: Action; label: string; help: string }[] = [
  { action: 'retry', label: 'Retry step', help: 'runs the step again' },
  { action: 'skip', label: 'Skip step', help: 'goes on without it' },
  { action: 'replan', label: 'Replan', help: 'asks the planner for the rest of the plan (needs an LLM)' },
  { action: 'abort', label: 'Abort run', help: 'ends the run, aborted' },
];

type Props = {
  /** What the run asks (the step's prompt, or why it waits). */
  prompt?: string;
  /** The JSON Schema the answer must fit (a `human.input` step's `schema`): shown, so it is not guessed. */
  schema?: unknown;
  /** When a `human.input` question is due and what happens then (the run view's `waiting`). */
  due?: Parameters<typeof inputDeadlineText>[0];
  /** The failed step the run asks about (`ask_user`); absent for a `human.input` step. */
  failedStep?: string;
  disabled?: boolean;
  /** Resolves true when the run took the answer. */
  onSend: (input: unknown) => Promise<boolean>;
  /** Who answers (the name field), drawn first in the form. */
  who?: ComponentChildren;
};

export function InputForm({ prompt, schema, due, failedStep, disabled, onSend, who }: Props) {
  const [text, setText] = useState('');
  const [phase, setPhase] = useState<'idle' | 'sending' | 'sent'>('idle');
  // Set at once, not on the next render: a double click's second click finds it set.
  const inFlight = useRef(false);

  const send = async (input: unknown) => {
    if (inFlight.current) return;
    inFlight.current = true;
    setPhase('sending');
    const ok = await onSend(input);
    if (ok) return setPhase('sent');
    inFlight.current = false;
    setPhase('idle');
  };
  const off = !!disabled || phase !== 'idle';
  const sent =
    phase === 'idle' ? null : (
      <span class="muted" role="status">
        {phase === 'sending' ? 'Sending…' : 'Sent; waiting for the run to go on.'}
      </span>
    );
  const edit = (e: Event) => setText((e.target as HTMLTextAreaElement).value);

  if (failedStep !== undefined) {
    const info = parseObject(text);
    return (
      <form class="input-form" aria-label="Answer the run" onSubmit={(e) => e.preventDefault()}>
        {who}
        <p class="prompt">
          {prompt !== undefined
            ? visibleText(prompt)
            : `Step “${failedStep}” failed: how should the run continue?`}
        </p>
        <ul class="help muted">
          {ACTIONS.map((a) => (
            <li key={a.action}>
              <strong>{a.label}</strong> {a.help}
            </li>
          ))}
        </ul>
        <label>
          New information (optional): a JSON object, its keys go into the run’s state
          <textarea rows={2} value={text} onInput={edit} placeholder='{"hint": "…"}' />
        </label>
        {info === null ? <p class="error">Not a JSON object: fix it or clear it to answer.</p> : null}
        <div class="actions">
          {ACTIONS.map((a) => (
            <button
              key={a.action}
              type="button"
              class={a.action === 'retry' ? 'primary' : ''}
              disabled={off || info === null}
              onClick={() => void send({ ...info, action: a.action })}
            >
              {a.label}
            </button>
          ))}
          {sent}
        </div>
      </form>
    );
  }

  const deadline = inputDeadlineText(due);
  const submit = (e: Event) => {
    e.preventDefault();
    let input: unknown = text;
    try {
      input = JSON.parse(text);
    } catch {
      // plain text is the answer as typed
    }
    void send(input);
  };
  return (
    <form class="input-form" onSubmit={submit} aria-label="Answer the run">
      {who}
      <label>
        {prompt !== undefined ? visibleText(prompt) : 'The run waits for input'}
        <textarea rows={3} value={text} onInput={edit} />
      </label>
      <p class="help muted">
        The answer is the step’s output: JSON if it parses as JSON, else the text as typed.
      </p>
      {schema === undefined ? null : (
        <div class="answer-schema">
          <p class="help muted">
            It must fit this JSON Schema (another answer is refused, and the step waits on):
          </p>
          <pre>{jsonText(schema)}</pre>
        </div>
      )}
      {deadline === null ? null : (
        <p class="input-deadline muted" data-input-deadline={due?.if_unanswered}>
          {deadline}
        </p>
      )}
      <div class="actions">
        <button type="submit" class="primary" disabled={off}>
          Send
        </button>
        {sent}
      </div>
    </form>
  );
}

/** The text as a JSON object: `{}` when empty, null when it is not one. */
function parseObject(text: string): Record<string, unknown> | null {
  if (!text.trim()) return {};
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
