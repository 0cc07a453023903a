/**
 * The run machine's attempt inputs: an attempt begun (`invoked`), its result, its wait for a person,
 * its re-dispatch into the run's object, and the judge's verdict on its output. A duplicate, late or
 * stale one changes nothing.
 */
import { TERMINAL_RUN_STATUSES } from '../plan/model';
import { actionFor, stepDef } from './step-definition';
import type { EventDraft } from './events';
import type { MachineDeps, MachineInput, Refusal } from './machine-types';
import { checkExpected, reportUnexpected } from './output-reflection';
import { questionDeadline } from './question-deadline';
import { exitVerdict } from './react-turn';
import { returnedPayload, returnedReferences } from './returned-payload';
import type { RunState } from './state';

type Emit = (d: EventDraft) => void;

type AttemptInput = Extract<
  MachineInput,
  { type: 'judged' | 'await_input' | 'invoked' | 'result' | 'redispatch' }
>;

/**
 * Turns an attempt input into its events; an input for an attempt no longer running is ignored.
 */
export function acceptAttemptInput(
  s: RunState,
  input: AttemptInput,
  emit: Emit,
  deps: MachineDeps,
): Refusal | undefined {
  switch (input.type) {
    case 'judged': {
      if (!s.judging.includes(input.step_id)) return;
      // ReAct's exit criteria: met ends the loop; not met, the next turn follows as it would.
      const exit = exitVerdict(s, input);
      if (exit) return void emit(exit);
      if (input.ok) {
        emit({
          type: 'ReflectionAdded',
          payload: {
            step_id: input.step_id,
            reflection: `Output of "${input.step_id}" meets its expected_output: ${input.reason}`,
            ...(input.tokens ? { tokens: input.tokens } : {}),
          },
          references: { step_id: input.step_id },
        });
      } else {
        reportUnexpected(s, deps.canRevise ?? false, input.step_id, input.reason, emit, input.tokens);
      }
      return;
    }
    case 'await_input': {
      const rt = s.steps.get(input.step_id);
      if (!rt || rt.status !== 'running' || rt.attempt !== input.attempt || s.status !== 'running') return;
      const { step_id, prompt, schema } = input;
      // When it is due and what happens then, so whoever answers is told (the attempt's deadline).
      const due = questionDeadline(s, step_id);
      emit({
        type: 'InputRequested',
        payload: {
          reason: prompt,
          step_id,
          prompt,
          ...(schema === undefined ? {} : { schema }),
          ...(due ?? {}),
        },
        references: { step_id },
      });
      return;
    }
    case 'invoked': {
      const rt = s.steps.get(input.step_id);
      if (!rt || rt.status !== 'running' || rt.attempt !== input.attempt || rt.invoked) return;
      const { step_id, attempt, tool, parameters, idempotency_key, deadline_at, limit_ms } = input;
      emit({
        type: 'ToolInvoked',
        payload:
          deadline_at === undefined
            ? { step_id, attempt, tool, parameters, idempotency_key }
            : {
                step_id,
                attempt,
                tool,
                parameters,
                idempotency_key,
                deadline_at,
                ...(limit_ms !== undefined ? { limit_ms } : {}),
              },
        references: { step_id, tool_version: input.tool_version },
      });
      return;
    }
    case 'result': {
      const rt = s.steps.get(input.step_id);
      // At most one result per attempt: a duplicate, late or stale report changes nothing.
      if (
        !rt ||
        rt.status !== 'running' ||
        rt.attempt !== input.attempt ||
        s.needs_decision.has(input.step_id)
      )
        return;
      const payload = returnedPayload(s, input.step_id, input.attempt, input.outcome);
      // An attempt that outlived its run: recorded (its tool ran), marked, and not reflected on.
      if (TERMINAL_RUN_STATUSES.has(s.status)) {
        emit({
          type: 'ToolReturned',
          payload: { ...payload, after_run_ended: true },
          references: returnedReferences(s, input.step_id),
        });
        return;
      }
      emit({ type: 'ToolReturned', payload, references: returnedReferences(s, input.step_id) });
      if (payload.success) {
        const opts = { canRevise: deps.canRevise ?? false, judge: deps.judge ?? false };
        checkExpected(s, opts, input.step_id, payload.output, emit);
      }
      return;
    }
    case 'redispatch': {
      const rt = s.steps.get(input.step_id);
      // Only a queued attempt nobody began, of a run still going: one begun may be running somewhere.
      if (
        !rt ||
        rt.status !== 'running' ||
        rt.attempt !== input.attempt ||
        rt.dispatch !== 'queue' ||
        rt.invoked ||
        s.needs_decision.has(input.step_id) ||
        TERMINAL_RUN_STATUSES.has(s.status)
      )
        return;
      const step = stepDef(s, input.step_id);
      const { action } = actionFor(step, rt.on_fallback);
      const timeout = step.timeout_ms ?? s.config.step_timeout * 1000;
      emit({
        type: 'StepRedispatched',
        payload: {
          step_id: input.step_id,
          attempt: input.attempt,
          action,
          fallback: rt.on_fallback,
          dispatch: 'inline',
          deadline_at: deps.clock.now().getTime() + timeout,
          waited_ms: input.waited_ms,
          error: input.error,
        },
        references: { step_id: input.step_id },
      });
      return;
    }
  }
}
