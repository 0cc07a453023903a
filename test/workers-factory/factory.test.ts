import { describe, expect, it } from 'vitest';
import { createEdgeplan } from '../../src/worker-factory';
import { api, startRun, waitForRun } from '../workers/helpers';
import { greet } from './worker';

const plan = (ids: string[]) => ({
  goal: 'greet',
  steps: ids.map((id) => ({ id, action: 'team.greet', parameters: { name: id } })),
});

describe('a Worker built with createEdgeplan and a tool of its own', () => {
  it('lists the tool in /v1/tools beside the built-ins and the demo pack', async () => {
    const r = await api('GET', '/v1/tools');
    const names = (r.body.tools as { name: string }[]).map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['team.greet', 'http.request', 'agent.dispatch', 'demo.echo']),
    );
  });

  it('validates plans against it', async () => {
    const bad = await api('POST', '/v1/plans/validate', {
      plan: { goal: 'g', steps: [{ id: 'a', action: 'team.greet', parameters: { name: 3 } }] },
    });
    expect(bad.body.valid).toBe(false);
    expect(bad.body.errors.map((e: { code: string }) => e.code)).toContain('invalid_parameters');
  });

  it('runs it inline in the run object, with the secret from the bindings', async () => {
    const runId = await startRun(plan(['ada']), { execution_mode: 'sequential' });
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.step_results.ada).toEqual({ greeting: 'Hello, ada!', signed: 'from-env' });
  });

  it('runs it through the steps queue consumer', async () => {
    const runId = await startRun(plan(['ada', 'bob', 'cy']), { execution_mode: 'parallel', max_parallel: 3 });
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.step_results.cy.greeting).toBe('Hello, cy!');
  });

  it('refuses, at startup, a tool named like a built-in', () => {
    expect(() => createEdgeplan({ tools: [{ ...greet, name: 'llm.call' }] })).toThrow(
      'edgeplan: tool "llm.call" is built in',
    );
  });
});
