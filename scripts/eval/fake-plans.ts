/**
 * The fake LLM's answers, per goal of the suite: a good plan for each (valid, dependencies exactly
 * the data flow and ordering the goal needs, every step described), and the flaws `fake-flawed`
 * adds so each metric has something to catch — a cycle and an unknown tool (repaired), an answer
 * that is never a plan, an unneeded and two missing dependencies, a revision that drops the failed
 * work, steps with no description.
 */

type Step = {
  id: string;
  description?: string;
  action: string;
  parameters: Record<string, unknown>;
  dependencies: string[];
  expected_output?: string;
};

const step = (
  id: string,
  description: string,
  action: string,
  parameters: Record<string, unknown>,
  dependencies: string[] = [],
): Step => ({ id, description, action, parameters, dependencies });

/** Good plans, by goal id. */
export const GOOD_PLANS: Record<string, Step[]> = {
  'search-title': [
    step('search', 'Search the docs for durable objects', 'eval.search', {
      query: 'durable objects',
      limit: 1,
    }),
    step(
      'format',
      'Format the top title',
      'eval.format',
      { template: 'Top: {title}', values: { title: '{{ steps.search.output.results[0].title }}' } },
      ['search'],
    ),
  ],
  'calc-chain': [
    step('mul', 'Compute (17 + 25) * 3', 'eval.calc', { expression: '(17 + 25) * 3' }),
    step('div', 'Divide the product by 7', 'eval.calc', { expression: '{{ steps.mul.output.value }} / 7' }, [
      'mul',
    ]),
  ],
  currency: [
    step('rate', 'Get the USD to EUR rate', 'eval.rates', { from: 'USD', to: 'EUR' }),
    step('convert', 'Convert 250 USD', 'eval.calc', { expression: '250 * {{ steps.rate.output.rate }}' }, [
      'rate',
    ]),
  ],
  'weather-compare': [
    step('paris', 'Weather in Paris', 'eval.weather', { city: 'Paris' }),
    step('tokyo', 'Weather in Tokyo', 'eval.weather', { city: 'Tokyo' }),
    step(
      'compare',
      'One sentence comparing the temperatures',
      'eval.format',
      {
        template: 'Paris is {p} °C and Tokyo is {t} °C.',
        values: { p: '{{ steps.paris.output.temp_c }}', t: '{{ steps.tokyo.output.temp_c }}' },
      },
      ['paris', 'tokyo'],
    ),
  ],
  'notes-roundtrip': [
    step('write', 'Save the note', 'eval.notes_write', { key: 'todo', text: 'buy milk' }),
    step('read', 'Read the note back', 'eval.notes_read', { key: 'todo' }, ['write']),
    step('echo', 'Echo its text', 'demo.echo', { text: '{{ steps.read.output.text }}' }, ['read']),
  ],
  'two-searches': [
    step('kv', 'Search for workers kv', 'eval.search', { query: 'workers kv', limit: 1 }),
    step('d1', 'Search for d1 database', 'eval.search', { query: 'd1 database', limit: 1 }),
    step(
      'line',
      'Both top URLs on one line',
      'eval.format',
      {
        template: '{a} | {b}',
        values: { a: '{{ steps.kv.output.results[0].url }}', b: '{{ steps.d1.output.results[0].url }}' },
      },
      ['kv', 'd1'],
    ),
  ],
  'greet-input': [
    step('greet', 'Greet the person', 'eval.format', {
      template: 'Hello, {name}!',
      values: { name: '{{ input.name }}' },
    }),
  ],
  'wait-then-echo': [
    step('wait', 'Wait 20 ms', 'demo.sleep', { ms: 20 }),
    step('done', 'Echo done', 'demo.echo', { status: 'done' }, ['wait']),
  ],
  'average-temp': [
    step('berlin', 'Weather in Berlin', 'eval.weather', { city: 'Berlin' }),
    step('madrid', 'Weather in Madrid', 'eval.weather', { city: 'Madrid' }),
    step('oslo', 'Weather in Oslo', 'eval.weather', { city: 'Oslo' }),
    step(
      'avg',
      'Average the three temperatures',
      'eval.calc',
      {
        expression:
          '({{ steps.berlin.output.temp_c }} + {{ steps.madrid.output.temp_c }} + {{ steps.oslo.output.temp_c }}) / 3',
      },
      ['berlin', 'madrid', 'oslo'],
    ),
  ],
  'save-search': [
    step('search', 'Search for cloudflare queues', 'eval.search', { query: 'cloudflare queues', limit: 1 }),
    step(
      'save',
      'Save the top URL as a note',
      'eval.notes_write',
      { key: 'queue-doc', text: '{{ steps.search.output.results[0].url }}' },
      ['search'],
    ),
    step('read', 'Read the note back', 'eval.notes_read', { key: 'queue-doc' }, ['save']),
    step(
      'show',
      'Format the saved URL',
      'eval.format',
      { template: 'Saved: {url}', values: { url: '{{ steps.read.output.text }}' } },
      ['read'],
    ),
  ],
  'gbp-report': [
    step('rate', 'Get the GBP to USD rate', 'eval.rates', { from: 'GBP', to: 'USD' }),
    step('amount', 'Convert 99.5 GBP', 'eval.calc', { expression: '99.5 * {{ steps.rate.output.rate }}' }, [
      'rate',
    ]),
    step(
      'show',
      'Format the amount',
      'eval.format',
      { template: '{amount} USD', values: { amount: '{{ steps.amount.output.value }}' } },
      ['amount'],
    ),
  ],
  halves: [
    step('eighth', 'Compute 1024 / 8', 'eval.calc', { expression: '1024 / 8' }),
    step('sixteenth', 'Compute 1024 / 16', 'eval.calc', { expression: '1024 / 16' }),
    step(
      'sum',
      'Add the two results',
      'eval.calc',
      { expression: '{{ steps.eighth.output.value }} + {{ steps.sixteenth.output.value }}' },
      ['eighth', 'sixteenth'],
    ),
  ],
};

/** What `fake-flawed` answers instead, per goal and turn; a missing turn means the good plan. */
export type Flaw = {
  /** The first answer to the goal. */
  first?: string;
  /** The answer to a repair prompt. */
  repair?: string;
  /** The answer to a revision prompt. */
  revision?: string;
};

const json = (steps: Step[]): string => JSON.stringify({ steps });

/** `steps` of the good plan for `goal`, with `change` applied to a copy. */
function changed(goal: string, change: (steps: Step[]) => void): string {
  const steps = structuredClone(GOOD_PLANS[goal]!);
  change(steps);
  return json(steps);
}

const byId = (steps: Step[], id: string): Step => steps.find((s) => s.id === id)!;

export const FLAWS: Record<string, Flaw> = {
  // A cycle, then the repair prompt quoting it gets the good plan.
  'search-title': { first: changed('search-title', (s) => (byId(s, 'search').dependencies = ['format'])) },
  // An unknown tool, repaired.
  'calc-chain': { first: changed('calc-chain', (s) => (byId(s, 'mul').action = 'eval.math')) },
  // Prose and a code fence around the plan: the parser copes, valid at once.
  currency: {
    first: `Here is the plan:\n\`\`\`json\n${json(GOOD_PLANS.currency!)}\n\`\`\`\nLet me know if you need more.`,
  },
  // Tokyo needlessly waits for Paris: valid, but a dependency is unneeded.
  'weather-compare': {
    first: changed('weather-compare', (s) => (byId(s, 'tokyo').dependencies = ['paris'])),
  },
  // The read does not wait for the write: valid, the ordering dependency is missing, the run fails.
  'notes-roundtrip': { first: changed('notes-roundtrip', (s) => (byId(s, 'read').dependencies = [])) },
  // Reads d1's output without declaring it: valid (the reference implies it), a data-flow dependency missing.
  'two-searches': { first: changed('two-searches', (s) => (byId(s, 'line').dependencies = ['kv'])) },
  // Never a plan: planning fails after its repair.
  'greet-input': { first: 'I cannot plan this goal.', repair: 'Sorry, I still cannot.' },
  // The revision drops the failed work (saving the note) and just echoes: the run completes, uselessly.
  'save-search': {
    revision: json([
      ...GOOD_PLANS['save-search']!.slice(0, 1),
      step('show', 'Say what would have been saved', 'demo.echo', { text: 'Saved: (unknown)' }),
    ]),
  },
  // No descriptions: valid, but not one step says what it is for.
  halves: {
    first: changed('halves', (s) => {
      for (const x of s) delete x.description;
    }),
  },
};
