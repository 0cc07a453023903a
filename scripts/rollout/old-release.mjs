/**
 * What the old release's Worker has, read from its checkout, so that the reverse rehearsal expects
 * what that release answers: Idempotency-Key (2026-11-29), `GET /wait`, `/events` refusing an `after`
 * past the last event, and an answer to a step refusing keys beside `input` and `step_id`.
 *
 * @example
 * oldWorkerHas('/tmp/edgeplan-old'); // { keys: false, wait: false, afterChecked: false, stepAnswerChecked: false } for ae03508
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export function oldWorkerHas(oldRoot) {
  const has = (path, text) =>
    existsSync(join(oldRoot, path)) &&
    (text === undefined || readFileSync(join(oldRoot, path), 'utf8').includes(text));
  return {
    keys: has('src/http/idempotency-key.ts'),
    wait: has('src/http/routes/run-wait.ts'),
    afterChecked: has('src/http/routes/runs.ts', 'past the last event'),
    stepAnswerChecked: has('src/http/routes/run-revisions.ts', 'With step_id, the body is an answer'),
  };
}
