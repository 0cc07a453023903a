/**
 * A run's status and the seq of its last event, from its object — whichever release the object runs.
 * `progress()` is a small RPC the object gained with `GET /v1/runs/:id/wait`; during a gradual
 * deployment a run's object may still run the release before it while the Worker in front already
 * runs this one (docs/upgrading.md, "Gradual deployments"), and a call of a method the object does not
 * have throws. Such an object is read through its snapshot (`getRun`), which says the same at more cost.
 */
import type { RunObject } from '../durable/run-object';
import type { RunProgress } from './wait-condition';

/**
 * The run's progress; null when its object holds no run.
 * @example const now = await progressOf(runObject(env.PLAN_RUN, id)); // { status: 'running', last_seq: 7 }
 */
export async function progressOf(stub: RunObject): Promise<RunProgress | null> {
  try {
    return await stub.progress();
  } catch (err) {
    if (!lacksMethod(err, 'progress')) throw err;
    const run = await stub.getRun();
    return run && { status: run.status, last_seq: run.last_seq };
  }
}

/** workerd's refusal of an RPC call of a method the object's class does not have. */
function lacksMethod(err: unknown, name: string): boolean {
  return err instanceof Error && err.message.includes(`does not implement the method "${name}"`);
}
