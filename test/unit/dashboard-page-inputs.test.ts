/**
 * What the dashboard reads besides the typed client (src/ui/page-inputs.ts) — a new run's config and
 * input, a modified plan, the approval page's embedded data — checked, not cast: each that does not
 * parse or fit is an error naming what and where, for the page to show.
 */
import { describe, expect, it } from 'vitest';
import { approvalDataOf, configOf, inputOf, modifiedPlanOf } from '../../src/ui/page-inputs';

const plan = { id: 'plan_1', version: 1, goal: 'g', steps: [{ id: 'a', action: 'demo.echo' }] };
const approval = {
  run_id: 'run_1',
  goal: 'g',
  plan,
  estimates: { critical_path: [] },
  expires_at: 1,
  token: 'apv_x',
};

describe('a new run’s config and input as typed', () => {
  it('takes a JSON object as config, any JSON as input, and nothing for empty text', () => {
    expect(configOf('{"execution_mode": "parallel"}')).toEqual({
      ok: true,
      value: { execution_mode: 'parallel' },
    });
    expect(configOf('  ')).toEqual({ ok: true, value: undefined });
    expect(inputOf('[1, "two"]')).toEqual({ ok: true, value: [1, 'two'] });
    expect(inputOf('null')).toEqual({ ok: true, value: null });
  });

  it('refuses config that is not JSON or not an object, and input that is not JSON, saying which', () => {
    expect(configOf('{"execution_mode": ')).toMatchObject({ ok: false, error: /^Config is not JSON: / });
    for (const text of ['[1]', '"parallel"', 'null', '0'])
      expect(configOf(text), text).toEqual({ ok: false, error: 'Config: expected a JSON object ({ … })' });
    expect(inputOf('{city: Oslo}')).toMatchObject({ ok: false, error: /^Input is not JSON: / });
  });
});

describe('a modified plan as typed', () => {
  it('is sent as the plan it holds', () => {
    expect(modifiedPlanOf(JSON.stringify(plan))).toEqual({ ok: true, value: plan });
  });

  it('is refused, saying why, when empty, not JSON (YAML, say) or not a plan', () => {
    expect(modifiedPlanOf('')).toEqual({ ok: false, error: 'The plan is empty' });
    expect(modifiedPlanOf('nodes:\n  - name: a')).toMatchObject({
      ok: false,
      error: /^The plan is not JSON: /,
    });
    for (const text of ['[{"_tool": "demo.echo"}]', '{"steps": "a"}'])
      expect(modifiedPlanOf(text), text).toEqual({
        ok: false,
        error: 'The plan: expected a plan: a JSON object with a "steps" list',
      });
  });
});

describe('the approval page’s embedded data', () => {
  it('is none on the dashboard’s own page, and the approval when it fits', () => {
    expect(approvalDataOf(undefined)).toBeNull();
    expect(approvalDataOf('{}')).toBeNull();
    expect(approvalDataOf(JSON.stringify({ approval }))).toEqual({ ok: true, value: approval });
    const shaped = { ...approval, input_shape: { wait: 'string', ids: ['number', 'null'] } };
    expect(approvalDataOf(JSON.stringify({ approval: shaped }))).toEqual({ ok: true, value: shaped });
  });

  it('is an error naming the field when it does not fit, or when it is not JSON', () => {
    expect(approvalDataOf(JSON.stringify({ approval: { ...approval, expires_at: 'soon' } }))).toMatchObject({
      ok: false,
      error: /^The page's approval data at expires_at: /,
    });
    expect(approvalDataOf(JSON.stringify({ approval: { ...approval, plan: { steps: null } } }))).toEqual({
      ok: false,
      error: `The page's approval data at plan: expected a plan: a JSON object with a "steps" list`,
    });
    expect(approvalDataOf(JSON.stringify({ approval: { ...approval, input_shape: { a: 'date' } } }))).toEqual(
      {
        ok: false,
        error: "The page's approval data at input_shape: expected the input’s shape",
      },
    );
    expect(approvalDataOf('{"approval": {')).toMatchObject({
      ok: false,
      error: /^The page's data is not JSON: /,
    });
  });
});
