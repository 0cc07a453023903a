import { describe, expect, it } from 'vitest';
import { convertToolCalls, isToolCallPlan } from '../../src/import/tool-calls';
import { dependencies, toolsNamed, validate } from './import-helpers';

/** Converts, validates against tools of the calls' names, and returns the plan and its graph. */
function run(calls: unknown) {
  const converted = convertToolCalls(calls);
  if (!converted.ok) throw new Error(JSON.stringify(converted.errors));
  const list = Array.isArray(calls) ? calls : (calls as { calls: { _tool: string }[] }).calls;
  const names = [...new Set((list as { _tool: string }[]).map((c) => c._tool))];
  const v = validate(converted.plan, toolsNamed(...names));
  expect(v.errors).toEqual([]);
  return { plan: v.plan!, deps: dependencies(v.plan!) };
}

describe('seed-004 tool-call lists', () => {
  it('turns the profile/summary example into two steps joined through state', () => {
    const { plan, deps } = run([
      { _tool: 'fetchUserProfile', userName: 'Alice', _outputPath: '†state.userProfileData' },
      { _tool: 'summarizeProfile', profile: '†state.userProfileData', _outputPath: '†state.profileSummary' },
    ]);
    expect(plan.steps).toEqual([
      expect.objectContaining({
        id: 'fetchUserProfile_1',
        action: 'fetchUserProfile',
        parameters: { userName: 'Alice' },
        output_path: 'state.userProfileData',
      }),
      expect.objectContaining({
        id: 'summarizeProfile_1',
        action: 'summarizeProfile',
        parameters: { profile: '{{ state.userProfileData }}' },
        output_path: 'state.profileSummary',
      }),
    ]);
    expect(deps).toEqual({ fetchUserProfile_1: [], summarizeProfile_1: ['fetchUserProfile_1'] });
  });

  it('reads †input references from the run input and leaves calls with no shared state independent (refund)', () => {
    const { plan, deps } = run({
      calls: [
        { _tool: 'checkBillingHistory', customerId: '†input.customerId' },
        { _tool: 'issueRefund', customerId: '†input.customerId', amount: '†input.amount' },
      ],
      output: null,
    });
    expect(plan.steps.map((s) => [s.id, s.parameters])).toEqual([
      ['checkBillingHistory_1', { customerId: '{{ input.customerId }}' }],
      ['issueRefund_1', { customerId: '{{ input.customerId }}', amount: '{{ input.amount }}' }],
    ]);
    expect(deps).toEqual({ checkBillingHistory_1: [], issueRefund_1: [] });
  });

  it('converts the replanned pet-friendly hotel solution with the new tool', () => {
    const { plan } = run({
      calls: [
        { _tool: 'bookFlight', destination: '†input.destination' },
        { _tool: 'findPetFriendlyHotel', destination: '†input.destination' },
      ],
      output: null,
    });
    expect(plan.steps.map((s) => s.action)).toEqual(['bookFlight', 'findPetFriendlyHotel']);
    expect(plan.steps[1]!.parameters).toEqual({ destination: '{{ input.destination }}' });
  });

  it('keeps a branching _outputPath so the payment failure lands in state.error', () => {
    const { plan, deps } = run({
      calls: [
        { _tool: 'processPayment', amount: '†input.amount', _outputPath: '†state.receipt || †state.error' },
        { _tool: 'confirmOrder', receipt: '†state.receipt' },
      ],
      output: null,
    });
    expect(plan.steps[0]!.output_path).toBe('state.receipt || state.error');
    expect(deps.confirmOrder_1).toEqual(['processPayment_1']);
    // The replanned solution reads the error the failed payment wrote in an earlier turn.
    const replanned = run({
      calls: [{ _tool: 'reportFailure', error: '†state.error' }],
      output: { status: 'Failed' },
    });
    expect(replanned.plan.steps[0]!.parameters).toEqual({ error: '{{ state.error }}' });
  });

  it('wires the schema-guided translation plan into a chain through state', () => {
    const { plan, deps } = run({
      calls: [
        { _tool: 'detectLanguage', text: '†input.text', _outputPath: '†state.language' },
        { _tool: 'isEnglish', language: '†state.language', _outputPath: '†state.isEnglish' },
        {
          _tool: 'translateText',
          text: '†input.text',
          isEnglish: '†state.isEnglish',
          _outputPath: '†state.translatedText',
        },
      ],
      output: null,
    });
    expect(plan.steps.map((s) => s.output_path)).toEqual([
      'state.language',
      'state.isEnglish',
      'state.translatedText',
    ]);
    expect(deps).toEqual({
      detectLanguage_1: [],
      isEnglish_1: ['detectLanguage_1'],
      translateText_1: ['isEnglish_1'],
    });
  });

  it('numbers repeated tools separately and makes dotted tool names safe ids', () => {
    const converted = convertToolCalls([
      { _tool: 'demo.echo', a: 1 },
      { _tool: 'demo.sleep', ms: 1 },
      { _tool: 'demo.echo', b: '†state.x.items[0]' },
    ]);
    expect(converted.ok && converted.plan.steps.map((s) => s.id)).toEqual([
      'demo_echo_1',
      'demo_sleep_1',
      'demo_echo_2',
    ]);
    expect(converted.ok && converted.plan.steps[2]!.parameters).toEqual({ b: '{{ state.x.items[0] }}' });
  });

  it('reports every malformed call with where it is', () => {
    const converted = convertToolCalls([
      { userName: 'Alice' },
      { _tool: 'x', _outputPath: 'receipt' },
      { _tool: 'y', _output: { done: true } },
      { _tool: 'z', _outputpath: '†state.a', who: '†user.name' },
      'fetch',
    ]);
    expect(converted.ok).toBe(false);
    if (converted.ok) return;
    expect(converted.errors.map((e) => [e.code, e.path])).toEqual([
      ['missing_tool', [0, '_tool']],
      ['bad_output_path', [1, '_outputPath']],
      ['unsupported_field', [2, '_output']],
      ['unknown_meta_key', [3, '_outputpath']],
      ['bad_reference', [3, 'who']],
      ['bad_call', [4]],
    ]);
    expect(converted.errors[1]!.message).toBe(
      'plan[1]._outputPath: Bad output_path "receipt": "receipt" is not a path under state.',
    );
    expect(converted.errors[4]!.message).toContain('"†user.name" is not a reference');
  });

  it('points §2 steps sent as a bare array at the {steps} wrapper', () => {
    const converted = convertToolCalls([{ id: 'a', action: 'demo.echo' }]);
    expect(!converted.ok && converted.errors[0]!.message).toContain('wrap them in a plan: {"steps": [...]}');
  });

  it('recognises call lists and solutions but not §2 plans', () => {
    expect(isToolCallPlan([])).toBe(true);
    expect(isToolCallPlan({ calls: [], output: null })).toBe(true);
    expect(isToolCallPlan({ steps: [] })).toBe(false);
    expect(isToolCallPlan(undefined)).toBe(false);
  });
});
