/**
 * A `LocalRunner` run's config from what `start()` was given: parsed as `POST /v1/runs` parses it,
 * and refused the same way — `invalid_request` naming each bad setting in words, not zod's issues
 * dumped as JSON.
 */
import { z } from 'zod';
import { EdgeplanError } from '../errors';
import { formatIssues } from '../executor/run-step';
import { issueText } from '../issue-text';
import { parseRunConfig, type RunConfig } from '../plan/config';
import type { StartRequest } from './runner-options';

/**
 * The run's config, or `invalid_request` naming each bad setting.
 * @example startConfig({ retry_failed_steps: true }) // throws "Invalid run config: retry_failed_steps: must be a number, not a boolean"
 */
export function startConfig(raw: StartRequest['config']): RunConfig {
  try {
    return parseRunConfig(raw ?? {});
  } catch (err) {
    if (!(err instanceof z.ZodError)) throw err;
    throw new EdgeplanError('invalid_request', `Invalid run config: ${formatIssues(err)}`, {
      details: { issues: err.issues.map((i) => ({ path: i.path, message: issueText(i), code: i.code })) },
    });
  }
}
