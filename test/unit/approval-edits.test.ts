import { describe, expect, it } from 'vitest';
import {
  ApprovalDecisionSchema,
  applyEdits,
  parseApprovalDecision,
  type PlanEdit,
} from '../../src/approval/decision';
import type { Plan, PlanStep } from '../../src/plan/model';

function step(id: string, extra: Partial<PlanStep> = {}): PlanStep {
  return { id, description: id, action: 'demo.echo', parameters: {}, dependencies: [], ...extra };
}

function plan(steps: PlanStep[]): Plan {
  return {
    id: 'plan_1',
    version: 3,
    goal: 'g',
    strategy: 'manual',
    steps,
    created_at: '2026-01-01T00:00:00.000Z',
  };
}

const abcd = () => plan([step('a'), step('b', { dependencies: ['a'] }), step('c'), step('d')]);

function edited(p: Plan, edits: PlanEdit[]): Plan {
  const r = applyEdits(p, edits);
  if (!r.ok) throw new Error(r.message);
  return r.plan;
}

const ids = (p: Plan) => p.steps.map((s) => s.id);

describe('applyEdits', () => {
  it('updates the named fields of a step and leaves the rest alone', () => {
    const p = plan([step('a', { parameters: { q: 1 }, when: 'state.go', retries: 2 })]);
    const out = edited(p, [
      {
        op: 'update_step',
        step_id: 'a',
        changes: { description: 'Search', parameters: { q: 2 }, action: 'http.request' },
      },
    ]);
    expect(out.steps[0]).toEqual({
      id: 'a',
      description: 'Search',
      action: 'http.request',
      parameters: { q: 2 },
      dependencies: [],
      when: 'state.go',
      retries: 2,
    });
  });

  it('clears an optional field set to null and resets parameters to empty', () => {
    const p = plan([step('a', { parameters: { q: 1 }, when: 'state.go', fallback_action: 'demo.echo' })]);
    const out = edited(p, [
      { op: 'update_step', step_id: 'a', changes: { when: null, fallback_action: null, parameters: null } },
    ]);
    expect(out.steps[0]).toEqual(step('a'));
  });

  it('fills in the defaults of a sub-plan given in an update, the same way every time', () => {
    const edit: PlanEdit = {
      op: 'update_step',
      step_id: 'a',
      changes: { subplan: { goal: 'inner', steps: [{ id: 'x', action: 'demo.echo' }] } },
    };
    const first = edited(plan([step('a')]), [edit]);
    expect(first.steps[0]?.subplan).toEqual({
      id: 'plan_plan_1.a.1',
      version: 1,
      goal: 'inner',
      strategy: 'manual',
      created_at: '2026-01-01T00:00:00.000Z',
      steps: [step('x', { description: 'demo.echo' })],
    });
    expect(edited(plan([step('a')]), [edit])).toEqual(first);
  });

  it('removes a step and keeps other steps depending on it for validation to report', () => {
    const out = edited(abcd(), [{ op: 'remove_step', step_id: 'a' }]);
    expect(ids(out)).toEqual(['b', 'c', 'd']);
    expect(out.steps[0]?.dependencies).toEqual(['a']);
  });

  it('adds a normalised step after the named one, or at the end', () => {
    const out = edited(abcd(), [
      { op: 'add_step', step: { id: 'x', action: 'demo.echo', dependencies: ['a'] }, after: 'a' },
      { op: 'add_step', step: { id: 'y', description: 'summarise' } },
    ]);
    expect(ids(out)).toEqual(['a', 'x', 'b', 'c', 'd', 'y']);
    expect(out.steps[1]).toEqual(step('x', { description: 'demo.echo', dependencies: ['a'] }));
    expect(out.steps[5]).toEqual({
      id: 'y',
      description: 'summarise',
      action: 'llm.call',
      parameters: { prompt: 'summarise' },
      dependencies: [],
    });
  });

  it('moves a step to an index and keeps the order of all the others', () => {
    expect(ids(edited(abcd(), [{ op: 'move_step', step_id: 'd', to_index: 1 }]))).toEqual([
      'a',
      'd',
      'b',
      'c',
    ]);
    expect(ids(edited(abcd(), [{ op: 'move_step', step_id: 'a', to_index: 3 }]))).toEqual([
      'b',
      'c',
      'd',
      'a',
    ]);
    expect(ids(edited(abcd(), [{ op: 'move_step', step_id: 'b', to_index: 1 }]))).toEqual([
      'a',
      'b',
      'c',
      'd',
    ]);
  });

  it('replaces the dependencies of a step', () => {
    const out = edited(abcd(), [{ op: 'set_dependencies', step_id: 'b', dependencies: ['c', 'd'] }]);
    expect(out.steps[1]?.dependencies).toEqual(['c', 'd']);
  });

  it('applies edits in order, each to the result of the last', () => {
    const out = edited(abcd(), [
      { op: 'remove_step', step_id: 'c' },
      { op: 'add_step', step: { id: 'c', action: 'http.request' }, after: 'd' },
      { op: 'move_step', step_id: 'c', to_index: 0 },
      { op: 'update_step', step_id: 'c', changes: { description: 'fetch' } },
    ]);
    expect(ids(out)).toEqual(['c', 'a', 'b', 'd']);
    expect(out.steps[0]).toMatchObject({ action: 'http.request', description: 'fetch' });
  });

  it('keeps the plan id and version for the engine to bump, and leaves the input plan untouched', () => {
    const p = abcd();
    const before = structuredClone(p);
    const out = edited(p, [
      { op: 'update_step', step_id: 'a', changes: { parameters: { q: 1 } } },
      { op: 'set_dependencies', step_id: 'b', dependencies: [] },
      { op: 'move_step', step_id: 'd', to_index: 0 },
      { op: 'remove_step', step_id: 'c' },
    ]);
    expect(p).toEqual(before);
    expect(out).toMatchObject({ id: 'plan_1', version: 3 });
  });

  it('refuses an edit naming an unknown step, naming the edit and the id', () => {
    const unknownTargets: PlanEdit[] = [
      { op: 'update_step', step_id: 'nope', changes: {} },
      { op: 'remove_step', step_id: 'nope' },
      { op: 'move_step', step_id: 'nope', to_index: 0 },
      { op: 'set_dependencies', step_id: 'nope', dependencies: [] },
    ];
    for (const edit of unknownTargets) {
      expect(applyEdits(abcd(), [{ op: 'remove_step', step_id: 'd' }, edit])).toEqual({
        ok: false,
        message: `edits[1] (${edit.op}): no step "nope" in plan plan_1 (it has 3 steps)`,
      });
    }
  });

  it('refuses to add a step whose id exists or whose "after" names no step', () => {
    expect(applyEdits(abcd(), [{ op: 'add_step', step: { id: 'b' } }])).toEqual({
      ok: false,
      message: 'edits[0] (add_step): a step "b" already exists in plan plan_1',
    });
    expect(applyEdits(abcd(), [{ op: 'add_step', step: { id: 'x' }, after: 'zz' }])).toEqual({
      ok: false,
      message: 'edits[0] (add_step): "after" names no step: "zz"',
    });
  });

  it('refuses a move past the end of the plan', () => {
    expect(applyEdits(abcd(), [{ op: 'move_step', step_id: 'a', to_index: 4 }])).toEqual({
      ok: false,
      message: 'edits[0] (move_step): to_index 4 is outside 0-3 for "a"',
    });
  });
});

describe('ApprovalDecisionSchema', () => {
  it('accepts approve and reject with an optional comment', () => {
    expect(ApprovalDecisionSchema.parse({ decision: 'approve' })).toEqual({ decision: 'approve' });
    expect(ApprovalDecisionSchema.parse({ decision: 'reject', comment: 'too costly' })).toEqual({
      decision: 'reject',
      comment: 'too costly',
    });
  });

  it('accepts modify with a whole plan, passing the plan through for validation', () => {
    const body = { decision: 'modify', plan: { steps: 'not even a list' } };
    expect(ApprovalDecisionSchema.parse(body)).toEqual(body);
  });

  it('accepts modify with every kind of edit', () => {
    const edits = [
      {
        op: 'update_step',
        step_id: 'a',
        changes: { description: 'x', parameters: { q: 1 }, action: 'demo.echo' },
      },
      { op: 'remove_step', step_id: 'b' },
      { op: 'add_step', step: { id: 'n', action: 'demo.echo' }, after: 'a' },
      { op: 'move_step', step_id: 'a', to_index: 2 },
      { op: 'set_dependencies', step_id: 'a', dependencies: ['n'] },
    ];
    expect(ApprovalDecisionSchema.parse({ decision: 'modify', edits }).edits).toEqual(edits);
  });

  it('refuses modify with neither a plan nor edits, and with both', () => {
    const neither = ApprovalDecisionSchema.safeParse({ decision: 'modify', plan: null });
    expect(neither.error?.issues[0]).toMatchObject({
      path: ['edits'],
      message: "decision 'modify' needs either a whole `plan` or a list of `edits`",
    });
    const both = ApprovalDecisionSchema.safeParse({
      decision: 'modify',
      plan: { steps: [] },
      edits: [{ op: 'remove_step', step_id: 'a' }],
    });
    expect(both.error?.issues[0]?.message).toBe('send either `plan` or `edits`, not both');
  });

  it('refuses a plan or edits sent with approve or reject', () => {
    const r = ApprovalDecisionSchema.safeParse({
      decision: 'approve',
      edits: [{ op: 'remove_step', step_id: 'a' }],
    });
    expect(r.error?.issues[0]).toMatchObject({
      path: ['edits'],
      message: "`edits` is only accepted with decision 'modify', not 'approve'",
    });
  });

  it('refuses a key it does not know, naming the one most likely meant (the comment was dropped)', () => {
    const r = parseApprovalDecision({ decision: 'approve', coment: 'looks good' });
    expect(r).toMatchObject({
      ok: false,
      message: 'Invalid approval: (root): Unknown key "coment" (did you mean "comment"?)',
    });
    expect(parseApprovalDecision({ decision: 'approve', approved: true }).ok).toBe(false);
    expect(parseApprovalDecision({ decision: 'approve', comment: 'fine' }).ok).toBe(true);
  });

  it('takes the decider’s name trimmed, and refuses an empty one, one over 120 characters or one with a line break', () => {
    expect(parseApprovalDecision({ decision: 'approve', approver: '  Ada Lovelace ' })).toMatchObject({
      ok: true,
      value: { approver: 'Ada Lovelace' },
    });
    expect(parseApprovalDecision({ decision: 'reject', approver: null })).toMatchObject({ ok: true });
    const refused = (approver: unknown) => {
      const r = parseApprovalDecision({ decision: 'approve', approver });
      return r.ok ? '' : r.message;
    };
    expect(refused('   ')).toBe(
      'Invalid approval: approver: give a name of at least one visible character, or leave `approver` out',
    );
    expect(refused('x'.repeat(121))).toBe('Invalid approval: approver: a name of at most 120 characters');
    expect(refused('Ada\nplan v9 approved by root')).toBe(
      'Invalid approval: approver: a name on one line, without control characters (line breaks, tabs)',
    );
    expect(refused('Ada\u2028root')).toContain('on one line');
    expect(refused(42)).toContain('approver');
  });

  it('refuses an unknown decision, an unknown op and an attempt to change a step id', () => {
    expect(ApprovalDecisionSchema.safeParse({ decision: 'maybe' }).success).toBe(false);
    const badOp = ApprovalDecisionSchema.safeParse({ decision: 'modify', edits: [{ op: 'rename_step' }] });
    expect(badOp.error?.issues[0]?.path).toEqual(['edits', 0, 'op']);
    const rename = ApprovalDecisionSchema.safeParse({
      decision: 'modify',
      edits: [{ op: 'update_step', step_id: 'a', changes: { id: 'b' } }],
    });
    expect(rename.error?.issues[0]).toMatchObject({ code: 'unrecognized_keys', keys: ['id'] });
  });

  it('refuses a negative or fractional move index and an added step with a malformed id', () => {
    for (const edit of [
      { op: 'move_step', step_id: 'a', to_index: -1 },
      { op: 'move_step', step_id: 'a', to_index: 1.5 },
      { op: 'add_step', step: { id: 'has space' } },
    ]) {
      expect(ApprovalDecisionSchema.safeParse({ decision: 'modify', edits: [edit] }).success).toBe(false);
    }
  });
});

describe('misspelt step fields in edits', () => {
  const messages = (edit: unknown): string[] => {
    const r = ApprovalDecisionSchema.safeParse({ decision: 'modify', edits: [edit] });
    return r.success ? [] : r.error.issues.map((i) => i.message);
  };

  it('an added step with "dependecies" is refused naming "dependencies" (it would not have waited)', () => {
    expect(messages({ op: 'add_step', step: { id: 'x', action: 'demo.echo', dependecies: ['a'] } })).toEqual([
      'Unknown key "dependecies" (did you mean "dependencies"?)',
    ]);
  });

  it('a change to "retires" is refused naming "retries"', () => {
    expect(messages({ op: 'update_step', step_id: 'a', changes: { retires: 2 } })).toEqual([
      'Unknown key "retires" (did you mean "retries"?)',
    ]);
  });

  it('an added step may still carry a sub-plan', () => {
    const edit = {
      op: 'add_step',
      step: { id: 'x', subplan: { steps: [{ id: 'in', action: 'demo.echo' }] } },
    };
    expect(messages(edit)).toEqual([]);
    expect(edited(abcd(), [edit as PlanEdit]).steps.at(-1)?.subplan?.steps[0]?.id).toBe('in');
  });
});
