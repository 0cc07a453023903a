import { describe, it } from 'vitest';
import { checkScenario, type Observed } from '../scenarios/subplan-check';
import { subplanScenarios } from '../scenarios/subplan-scenarios';
import { events, startRun, waitForRun } from './helpers';

// The in-process runner runs the same list (test/unit/subplan-scenarios.test.ts).
describe('sub-plans in the Worker (the shared scenarios)', () => {
  for (const s of subplanScenarios) {
    it(s.name, async () => {
      const runId = await startRun(s.plan, s.config, s.input);
      const run = (await waitForRun(runId)) as Observed['run'];
      const log: Observed['events'] = (await events(runId)).map((e) => ({
        event_type: e.event_type,
        timestamp: e.timestamp,
        references: e.references,
        payload: e.payload,
      }));
      checkScenario(s, { run, events: log });
    });
  }
});
