/**
 * Sub-plans (hierarchical plans) and `agent.dispatch`: one list of scenarios, run against both
 * runtimes — the in-process LocalRunner (test/unit/subplan-scenarios.test.ts) and the Worker's
 * POST /v1/runs (test/workers/subplan-scenarios.test.ts) — and checked by the same assertions
 * (./subplan-check.ts). Tools: `demo.echo` and `demo.sleep`, which behave alike in both.
 */

/** What a step that ran a child run records in `ToolInvoked`. */
export type InvokedExpectation = {
  /** The keys of the recorded parameters. */
  parameters: string[];
  /** The ids of the child plan's steps, as recorded. */
  plan_steps: string[];
  /** The attempt's own deadline is the child-run limit (the step sets no `timeout_ms`). */
  child_deadline: boolean;
};

/** Parts of a completed child step's output (its full key set is checked as well). */
export type RolledUpExpectation = {
  subtask_results: Record<string, unknown>;
  final_output: unknown;
  plan_status: { total: number; completed: number; failed: number };
};

export type SubplanScenario = {
  name: string;
  plan: { goal?: string; steps: Record<string, unknown>[] };
  config: Record<string, unknown>;
  input: Record<string, unknown>;
  expected: {
    status: 'completed' | 'failed';
    /** Steps that ran a child run, by id. */
    invoked: Record<string, InvokedExpectation>;
    /** Steps whose child run completed, by id. */
    rolled_up?: Record<string, RolledUpExpectation>;
    /** Other steps' outputs, exactly. */
    results?: Record<string, unknown>;
    /** Steps that failed (at the first attempt, not retried), with their error. */
    failed?: Record<string, { code: string; message: RegExp }>;
    /** Steps that never ran (no output). */
    not_run?: string[];
  };
};

/** The keys of a completed child run's result, in both runtimes. */
export const CHILD_OUTPUT_KEYS = [
  'final_output',
  'plan',
  'plan_status',
  'planning_trace',
  'replan_count',
  'run_id',
  'status',
  'subtask_results',
  'success',
  'token_usage',
];

/** The parameters a sub-plan step records. */
const SUBPLAN_CALL = ['config', 'input', 'plan'];

const echo = (id: string, parameters: Record<string, unknown> = {}, dependencies: string[] = []) => ({
  id,
  action: 'demo.echo',
  parameters,
  dependencies,
});

export const subplanScenarios: SubplanScenario[] = [
  {
    name: 'a sub-plan that succeeds: the step gets the child run’s rolled-up result',
    plan: {
      goal: 'research then outline',
      steps: [
        {
          ...echo('research'),
          description: 'Research the topic',
          subplan: {
            goal: 'research',
            steps: [
              echo('search', { q: '{{ input.topic }}' }),
              echo('read', { from: '{{ steps.search.output.q }}' }, ['search']),
            ],
          },
        },
        echo('outline', { from: '{{ steps.research.output.final_output.from }}' }, ['research']),
      ],
    },
    config: {},
    input: { topic: 'edge' },
    expected: {
      status: 'completed',
      invoked: {
        research: { parameters: SUBPLAN_CALL, plan_steps: ['search', 'read'], child_deadline: true },
      },
      rolled_up: {
        research: {
          subtask_results: { search: { q: 'edge' }, read: { from: 'edge' } },
          final_output: { from: 'edge' },
          plan_status: { total: 2, completed: 2, failed: 0 },
        },
      },
      results: { outline: { from: 'edge' } },
    },
  },
  {
    name: 'a sub-plan whose step fails: the parent step fails with child_run_failed, not retried',
    plan: {
      steps: [
        {
          ...echo('research'),
          subplan: {
            steps: [
              {
                id: 'slow',
                action: 'demo.sleep',
                parameters: { ms: 5000 },
                dependencies: [],
                timeout_ms: 50,
              },
            ],
          },
        },
        echo('outline', { from: '{{ steps.research.output.final_output }}' }, ['research']),
      ],
    },
    config: { retry_failed_steps: 2, retry_delay: 0 },
    input: {},
    expected: {
      status: 'failed',
      invoked: { research: { parameters: SUBPLAN_CALL, plan_steps: ['slow'], child_deadline: true } },
      failed: {
        research: {
          code: 'child_run_failed',
          message: /^Child run run_[0-9a-f]{32} ended failed: Step "slow" failed: /,
        },
      },
      not_run: ['outline'],
    },
  },
  {
    name: 'sub-plans nested two levels roll up level by level',
    plan: {
      steps: [
        {
          ...echo('outer'),
          subplan: {
            steps: [
              {
                ...echo('mid'),
                subplan: { steps: [echo('leaf', { deep: '{{ input.depth }}' })] },
              },
            ],
          },
        },
      ],
    },
    config: { max_depth: 2 },
    input: { depth: 2 },
    expected: {
      status: 'completed',
      invoked: { outer: { parameters: SUBPLAN_CALL, plan_steps: ['mid'], child_deadline: true } },
      rolled_up: {
        outer: {
          subtask_results: {
            mid: { status: 'completed', subtask_results: { leaf: { deep: 2 } }, final_output: { deep: 2 } },
          },
          final_output: { final_output: { deep: 2 } },
          plan_status: { total: 1, completed: 1, failed: 0 },
        },
      },
    },
  },
  {
    name: 'a later step reads one child step’s result through subtask_results',
    plan: {
      steps: [
        {
          ...echo('research'),
          subplan: { steps: [echo('a', { n: 1 }), echo('b', { n: 2 })] },
        },
        echo('use', { got: '{{ steps.research.output.subtask_results.a.n }}' }, ['research']),
      ],
    },
    config: { execution_mode: 'parallel' },
    input: {},
    expected: {
      status: 'completed',
      invoked: { research: { parameters: SUBPLAN_CALL, plan_steps: ['a', 'b'], child_deadline: true } },
      rolled_up: {
        research: {
          subtask_results: { a: { n: 1 }, b: { n: 2 } },
          final_output: { a: { n: 1 }, b: { n: 2 } },
          plan_status: { total: 2, completed: 2, failed: 0 },
        },
      },
      results: { use: { got: 1 } },
    },
  },
  {
    name: 'a sub-plan is held to the child-run limit, not the parent’s step_timeout',
    plan: {
      steps: [
        {
          ...echo('outer'),
          subplan: {
            steps: [
              {
                id: 'nap',
                action: 'demo.sleep',
                parameters: { ms: 150, value: 'rested' },
                dependencies: [],
                timeout_ms: 5000,
              },
            ],
          },
        },
      ],
    },
    config: { step_timeout: 0.05 },
    input: {},
    expected: {
      status: 'completed',
      invoked: { outer: { parameters: SUBPLAN_CALL, plan_steps: ['nap'], child_deadline: true } },
      rolled_up: {
        outer: {
          subtask_results: { nap: 'rested' },
          final_output: 'rested',
          plan_status: { total: 1, completed: 1, failed: 0 },
        },
      },
    },
  },
  {
    name: 'a step’s own timeout_ms bounds its sub-plan',
    plan: {
      steps: [
        {
          ...echo('outer'),
          timeout_ms: 100,
          subplan: {
            steps: [{ id: 'nap', action: 'demo.sleep', parameters: { ms: 3000 }, dependencies: [] }],
          },
        },
      ],
    },
    config: { retry_failed_steps: 0 },
    input: {},
    expected: {
      status: 'failed',
      invoked: { outer: { parameters: SUBPLAN_CALL, plan_steps: ['nap'], child_deadline: false } },
      failed: { outer: { code: 'timeout', message: /timed out after 100 ms$/ } },
    },
  },
  {
    name: 'agent.dispatch named as a step’s tool runs the same child run',
    plan: {
      steps: [
        {
          id: 'child',
          action: 'agent.dispatch',
          dependencies: [],
          parameters: { plan: { goal: 'child', steps: [echo('x'), echo('y', { after: 'x' }, ['x'])] } },
        },
        echo('after', { got: '{{ steps.child.output.subtask_results.y.after }}' }, ['child']),
      ],
    },
    config: {},
    input: {},
    expected: {
      status: 'completed',
      invoked: { child: { parameters: ['plan'], plan_steps: ['x', 'y'], child_deadline: true } },
      rolled_up: {
        child: {
          subtask_results: { x: {}, y: { after: 'x' } },
          final_output: { after: 'x' },
          plan_status: { total: 2, completed: 2, failed: 0 },
        },
      },
      results: { after: { got: 'x' } },
    },
  },
  {
    name: 'agent.dispatch with a plan that has findings fails once with invalid_plan',
    plan: {
      steps: [
        {
          id: 'child',
          action: 'agent.dispatch',
          dependencies: [],
          // A child plan may leave its dependencies to be derived, in both runtimes.
          parameters: { plan: { steps: [{ id: 'a', action: 'no.such' }] } },
        },
      ],
    },
    config: { retry_failed_steps: 3 },
    input: {},
    expected: {
      status: 'failed',
      invoked: { child: { parameters: ['plan'], plan_steps: ['a'], child_deadline: true } },
      failed: {
        child: {
          code: 'invalid_plan',
          message: /^The child plan has 1 finding\(s\): unknown_tool: Step "a": unknown tool "no\.such"/,
        },
      },
    },
  },
  {
    name: 'agent.dispatch with a plan its input cannot fill fails once with invalid_plan, as POST /v1/runs refuses one',
    plan: {
      steps: [
        {
          id: 'child',
          action: 'agent.dispatch',
          dependencies: [],
          // The plan handed over whole (written here, the parent would resolve its references); the
          // child's input is the parent's, whose `wait` is a string demo.sleep's `ms` cannot take.
          parameters: { plan: '{{ input.child_plan }}', input: '{{ input }}' },
        },
      ],
    },
    config: { retry_failed_steps: 3 },
    input: {
      wait: '5s',
      child_plan: {
        steps: [{ id: 'pause', action: 'demo.sleep', parameters: { ms: '{{ input.wait }}' } }],
      },
    },
    expected: {
      status: 'failed',
      invoked: { child: { parameters: ['input', 'plan'], plan_steps: ['pause'], child_deadline: true } },
      failed: {
        child: {
          code: 'invalid_plan',
          message:
            /^The child plan has 1 finding\(s\): bad_reference: Step "pause": \{\{ input\.wait \}\} is a string but parameters\.ms of tool demo\.sleep expects a number/,
        },
      },
    },
  },
];
