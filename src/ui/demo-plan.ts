/**
 * The plan the dashboard's "New run" panel starts with: demo tools only (`DEMO_TOOLS=true`), two
 * branches that run in parallel after `a`, and references that carry `a`'s output through `b` into `d`.
 */
export const DEMO_PLAN = {
  goal: 'Dashboard demo: greet, wait on two branches in parallel, then combine',
  steps: [
    {
      id: 'a',
      description: 'Say hello',
      action: 'demo.echo',
      parameters: { message: 'hello from edgeplan' },
      dependencies: [],
    },
    {
      id: 'b',
      description: "Wait 1.5 s, then pass a's output on",
      action: 'demo.sleep',
      parameters: { ms: 1500, value: '{{ steps.a.output }}' },
      dependencies: ['a'],
    },
    {
      id: 'c',
      description: 'Wait 1 s on the other branch',
      action: 'demo.sleep',
      parameters: { ms: 1000, value: 'side branch done' },
      dependencies: ['a'],
    },
    {
      id: 'd',
      description: 'Combine both branches',
      action: 'demo.echo',
      parameters: { greeting: 'b says: {{ steps.b.output.message }}', side: '{{ steps.c.output }}' },
      dependencies: ['b', 'c'],
    },
  ],
};

/** The config prefilled beside it: parallel, so `b` and `c` overlap. */
export const DEMO_CONFIG = { execution_mode: 'parallel', max_parallel: 3 };
