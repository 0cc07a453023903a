/**
 * The RPCs a `steps` queue consumer (or the object's own inline attempts) makes about the attempts it
 * runs (plan-run.ts names them): begin them, keep their leases, hand them over, report what they
 * returned or that they wait for a person.
 */
import type { StepOutcome } from '../engine/machine';
import type { BeginStep } from './begin-attempt';
import { CallBudget, Handoff } from './call-limits';
import type { Continuation } from './run-requests';
import type { RunDriver } from './run-driver';

export async function awaitInputOf(
  run: RunDriver,
  stepId: string,
  attempt: number,
  prompt: string,
  schema?: unknown,
): Promise<void> {
  if (!run.load()) return;
  const asked = schema === undefined ? {} : { schema };
  await run.apply([{ type: 'await_input', step_id: stepId, attempt, prompt, ...asked }]);
  handOver(run, stepId, attempt);
}

export function handOver(run: RunDriver, stepId: string, attempt: number): void {
  const rt = run.load()?.state.steps.get(stepId);
  if (rt?.status === 'running' && rt.attempt === attempt && rt.dispatch === 'queue' && rt.deadline_at)
    run.leases.handOver(stepId, attempt, rt.deadline_at);
}

export async function beginAttempts(
  run: RunDriver,
  requests: { step_id: string; attempt: number; redelivered?: boolean }[],
): Promise<BeginStep[]> {
  const m = run.load();
  if (!m) return requests.map(() => ({ proceed: false, reason: 'no such run' }));
  const out: BeginStep[] = [];
  const now = Date.now();
  const reply = new CallBudget();
  await run.apply([], {
    extra: (inputs) => {
      for (const r of requests) {
        // Carried out in the object since no consumer took it: a delivery now is too late.
        if (m.state.steps.get(r.step_id)?.dispatch === 'inline') {
          out.push({ proceed: false, reason: 'carried out in the run’s object' });
          continue;
        }
        // Another live consumer runs this attempt already (a duplicate send): leave it to that one.
        const held = !run.leases.take(r.step_id, r.attempt, now, r.redelivered === true);
        out.push(
          held
            ? { proceed: false, reason: 'held by another consumer' }
            : reply.fit(run.begin(m, r.step_id, r.attempt, inputs)),
        );
      }
    },
  });
  // The decision threw and was rolled back (the machine was reloaded, the run failed): nothing
  // above was begun.
  if (run.machine !== m) return requests.map(() => ({ proceed: false, reason: 'not begun' }));
  return out;
}

export function renewLeasesOf(run: RunDriver, attempts: { step_id: string; attempt: number }[]): void {
  if (run.load()) run.leases.renew(attempts, Date.now());
}

export async function completeAttempts(
  run: RunDriver,
  reports: { step_id: string; attempt: number; outcome: StepOutcome }[],
  take: number,
): Promise<Continuation[]> {
  const m = run.load();
  if (!m) return [];
  const handoff = new Handoff(take);
  await run.apply(
    reports.map((r) => ({ type: 'result', step_id: r.step_id, attempt: r.attempt, outcome: r.outcome })),
    { handoff },
  );
  // A decision that threw was rolled back, what it handed over with it (run-driver.ts).
  return run.machine === m ? handoff.taken : [];
}
