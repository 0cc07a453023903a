/**
 * A plan whose one step runs, as a child, the plan and input it was given: itself, forever — unless
 * child runs are bounded. Start it with `{ p: forkPlan }` as its input. The Worker's test
 * (test/workers/child-run-limits.test.ts) and the library's (test/unit/subplan-scenarios.test.ts).
 */
export const forkPlan = {
  goal: 'dispatch myself',
  steps: [
    {
      id: 'again',
      action: 'agent.dispatch',
      parameters: { plan: '{{ input.p }}', input: { p: '{{ input.p }}' } },
    },
  ],
};
