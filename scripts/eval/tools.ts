/**
 * The tools eval plans may use: the offline part of the demo pack (`demo.echo`, `demo.sleep`) and a
 * few eval tools with canned, deterministic answers — a search, a calculator, a formatter, weather,
 * exchange rates that fail the first time (a retry or a revision must get past it), and a note store
 * whose reads only see finished writes (so a missing ordering dependency shows up as a failure).
 * Nothing here touches the network: only the planner's LLM calls do. `demo.flaky` and `demo.counter`
 * are left out because they keep their counts in a Durable Object, which an in-process run lacks.
 */
import { z } from 'zod';
import { ToolError } from '../../src/errors';
import { defineTool, ToolRegistry, type AnyTool } from '../../src/executor/registry';
import { demoEcho, demoSleep } from '../../src/executor/tools/demo';
import { CalcError, evaluate } from './calc';
import { RATES, SEARCH_INDEX, WEATHER } from './tools-data';

const SEARCH_RESULT = z.object({ title: z.string(), url: z.string(), snippet: z.string() });

const search = defineTool({
  name: 'eval.search',
  description:
    'Searches a small documentation index and returns {results: [{title, url, snippet}]}, best match first.',
  version: '1',
  input: z.object({ query: z.string().min(1), limit: z.number().int().min(1).max(5).optional() }),
  output: z.object({ results: z.array(SEARCH_RESULT) }),
  idempotent: true,
  deterministic: true,
  estimated_latency_ms: 5,
  estimated_tokens: 0,
  run: ({ query, limit }) => {
    const q = query.toLowerCase();
    const hit = Object.keys(SEARCH_INDEX).find((k) => q.includes(k));
    const results = hit ? SEARCH_INDEX[hit]! : [];
    return Promise.resolve({ results: results.slice(0, limit ?? 3) });
  },
});

const calc = defineTool({
  name: 'eval.calc',
  description:
    'Computes an arithmetic expression (numbers, + - * / %, ^ for powers, parentheses) and returns {value}.',
  version: '1',
  input: z.object({ expression: z.string().min(1) }),
  output: z.object({ value: z.number() }),
  idempotent: true,
  deterministic: true,
  estimated_latency_ms: 1,
  estimated_tokens: 0,
  run: ({ expression }) => {
    try {
      return Promise.resolve({ value: evaluate(expression) });
    } catch (err) {
      if (err instanceof CalcError)
        throw new ToolError('invalid_expression', err.message, { retryable: false });
      throw err;
    }
  },
});

const format = defineTool({
  name: 'eval.format',
  description:
    'Fills a text template: each {name} in `template` is replaced by `values.name` (objects as JSON). Returns {text}.',
  version: '1',
  input: z.object({ template: z.string(), values: z.record(z.string(), z.unknown()).optional() }),
  output: z.object({ text: z.string() }),
  idempotent: true,
  deterministic: true,
  estimated_latency_ms: 1,
  estimated_tokens: 0,
  run: ({ template, values }) => {
    const text = template.replace(/\{(\w+)\}/g, (whole, name: string) => {
      if (!values || !(name in values)) return whole;
      const v = values[name];
      return typeof v === 'string' ? v : JSON.stringify(v);
    });
    return Promise.resolve({ text });
  },
});

const weather = defineTool({
  name: 'eval.weather',
  description: 'Current weather in a city: returns {city, temp_c, condition}.',
  version: '1',
  input: z.object({ city: z.string().min(1) }),
  output: z.object({ city: z.string(), temp_c: z.number(), condition: z.string() }),
  idempotent: true,
  deterministic: true,
  estimated_latency_ms: 5,
  estimated_tokens: 0,
  run: ({ city }) => {
    const w = WEATHER[city.trim().toLowerCase()];
    if (!w) {
      const known = Object.keys(WEATHER).join(', ');
      throw new ToolError('unknown_city', `eval.weather knows no city "${city}" (known: ${known})`, {
        retryable: false,
      });
    }
    return Promise.resolve({ city, ...w });
  },
});

/** Per-run state of the tools that have some. */
type RunTools = { notes: Map<string, string>; ratesAsked: Set<string> };

function rates(run: RunTools) {
  return defineTool({
    name: 'eval.rates',
    description:
      'Exchange rate between two currencies (ISO codes, e.g. USD, EUR): returns {from, to, rate}. ' +
      'The service is unreliable: a request may fail once and succeed when tried again.',
    version: '1',
    input: z.object({ from: z.string().length(3), to: z.string().length(3) }),
    output: z.object({ from: z.string(), to: z.string(), rate: z.number() }),
    idempotent: true,
    deterministic: false,
    estimated_latency_ms: 10,
    estimated_tokens: 0,
    run: ({ from, to }) => {
      const pair = `${from.toUpperCase()}:${to.toUpperCase()}`;
      const rate = RATES[pair];
      if (rate === undefined) {
        throw new ToolError('unknown_pair', `eval.rates has no rate for ${pair}`, { retryable: false });
      }
      // The first request per pair fails, so every plan using rates meets one failure.
      if (!run.ratesAsked.has(pair)) {
        run.ratesAsked.add(pair);
        throw new ToolError('rates_busy', `eval.rates: the rates service is busy (${pair}); try again`);
      }
      return Promise.resolve({ from: from.toUpperCase(), to: to.toUpperCase(), rate });
    },
  });
}

function notesWrite(run: RunTools) {
  return defineTool({
    name: 'eval.notes_write',
    description: 'Saves `text` under `key` in a note store; returns {key, saved: true}.',
    version: '1',
    input: z.object({ key: z.string().min(1), text: z.string() }),
    output: z.object({ key: z.string(), saved: z.boolean() }),
    idempotent: true,
    deterministic: true,
    estimated_latency_ms: 5,
    estimated_tokens: 0,
    // The write lands after a moment, so a read running beside it (not after it) misses it.
    run: async ({ key, text }) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      run.notes.set(key, text);
      return { key, saved: true };
    },
  });
}

function notesRead(run: RunTools) {
  return defineTool({
    name: 'eval.notes_read',
    description: 'Reads the note saved under `key`: returns {key, text}; fails when no note has that key.',
    version: '1',
    input: z.object({ key: z.string().min(1) }),
    output: z.object({ key: z.string(), text: z.string() }),
    idempotent: true,
    deterministic: false,
    estimated_latency_ms: 5,
    estimated_tokens: 0,
    run: ({ key }) => {
      const text = run.notes.get(key);
      if (text === undefined) {
        throw new ToolError('note_not_found', `eval.notes_read: no note "${key}" has been saved`, {
          retryable: false,
        });
      }
      return Promise.resolve({ key, text });
    },
  });
}

/**
 * A registry with fresh tool state: one per run, so runs do not see each other's notes or failures.
 * Every registry describes the same tools, so any one of them serves the planner.
 * @example const tools = evalTools(); tools.has('eval.calc'); // true
 */
export function evalTools(): ToolRegistry {
  const run: RunTools = { notes: new Map(), ratesAsked: new Set() };
  const tools: AnyTool[] = [
    demoEcho,
    demoSleep,
    search,
    calc,
    format,
    weather,
    rates(run),
    notesWrite(run),
    notesRead(run),
  ];
  return new ToolRegistry(tools);
}
