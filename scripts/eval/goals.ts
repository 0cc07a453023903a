/**
 * The eval suite: goals a planner should be able to reach with the tools in `tools.ts`, each small
 * enough to check by hand. Data flow (one step reading another's output) is found in the plan's
 * references; `order` adds what the goal asks for that no reference expresses — a note must be
 * written before it is read, a wait must end before what follows it.
 */

export type EvalGoal = {
  /** Short and stable: results and the fake LLM's canned plans are keyed by it. */
  id: string;
  goal: string;
  /** The run's input (`{{ input.<path> }}`). */
  input?: Record<string, unknown>;
  /**
   * `[before, after]` tool names: every step running `after` must come after every step running
   * `before` (through its declared dependencies).
   */
  order?: readonly (readonly [string, string])[];
};

export const GOALS: readonly EvalGoal[] = [
  {
    id: 'search-title',
    goal: 'Search the docs for "durable objects" and format the title of the top result as "Top: <title>".',
  },
  {
    id: 'calc-chain',
    goal: 'Compute (17 + 25) * 3, then divide that result by 7.',
  },
  {
    id: 'currency',
    goal: 'Get the USD to EUR exchange rate and use it to convert 250 USD to EUR.',
  },
  {
    id: 'weather-compare',
    goal: 'Get the weather in Paris and in Tokyo, then write one sentence comparing their temperatures.',
  },
  {
    id: 'notes-roundtrip',
    goal: 'Save the note "buy milk" under the key "todo", then read the note "todo" back and echo its text.',
    order: [['eval.notes_write', 'eval.notes_read']],
  },
  {
    id: 'two-searches',
    goal: 'Search the docs for "workers kv" and for "d1 database", then format both top result URLs on one line.',
  },
  {
    id: 'greet-input',
    goal: 'Greet the person named in the run input: format "Hello, <name>!" using the input field "name".',
    input: { name: 'Ada' },
  },
  {
    id: 'wait-then-echo',
    goal: 'Wait 20 milliseconds, and only after the wait, echo {"status": "done"}.',
    order: [['demo.sleep', 'demo.echo']],
  },
  {
    id: 'average-temp',
    goal: 'Get the temperatures in Berlin, Madrid and Oslo, then compute their average.',
  },
  {
    id: 'save-search',
    goal:
      'Search the docs for "cloudflare queues", save the top result URL as the note "queue-doc", ' +
      'then read the note "queue-doc" back and format it as "Saved: <url>".',
    order: [['eval.notes_write', 'eval.notes_read']],
  },
  {
    id: 'gbp-report',
    goal: 'Convert 99.5 GBP to USD using the current exchange rate, then format the amount as "<amount> USD".',
  },
  {
    id: 'halves',
    goal: 'Compute 1024 / 8 and 1024 / 16 as two separate calculations, then add the two results.',
  },
];
