import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/engine/events';
import { eventJson, jsonOf, rememberPlanText } from '../../src/durable/plan-text';

describe('remembered plan texts', () => {
  it('make the same JSON as serialising again, with $ and quotes in the plan left alone', () => {
    const text = JSON.stringify({
      id: 'p',
      version: 1,
      steps: [{ id: 'a', parameters: { x: '$& "$1" \\' } }],
    });
    const plan = JSON.parse(text) as object;
    rememberPlanText(plan, text);
    const event = {
      event_id: 'e',
      seq: 2,
      event_type: 'PlanAuthored',
      timestamp: 't',
      actor: 'run:r',
      references: { plan_id: 'p', plan_version: 1 },
      payload: { plan, tokens: { prompt: 1, completion: 2 } },
    } as unknown as RunEvent;
    expect(eventJson(event)).toBe(JSON.stringify(event));
    expect(jsonOf(plan)).toBe(text);
    expect(jsonOf({ other: 1 })).toBe('{"other":1}');
    expect(jsonOf(undefined)).toBe('null');
  });
});
