/**
 * Built-in rules for the rule-based planner, useful with the demo tools and `http.request` and with
 * no LLM at all: "echo …", "wait N ms", "fetch https://…", "increment counter k", and sequences of
 * them joined by "then" or ";". A rule applies only when its tool is among the state's tools.
 */
import type { PlanStep } from '../plan/model';
import type { PlannerState, Rule } from './contracts';

/** A goal clause one tool call can serve. */
type Clause = {
  id: string;
  tool: string;
  pattern: RegExp;
  step: (m: RegExpExecArray) => Omit<PlanStep, 'id' | 'dependencies'> | null;
};

const CLAUSES: readonly Clause[] = [
  {
    id: 'echo',
    tool: 'demo.echo',
    pattern: /^(?:echo|say|repeat|print)\s+["“']?([\s\S]+?)["”']?$/i,
    step: (m) => ({ description: `Echo "${m[1]}"`, action: 'demo.echo', parameters: { message: m[1] } }),
  },
  {
    id: 'wait',
    tool: 'demo.sleep',
    pattern: /^(?:wait|sleep|pause)\s+(?:for\s+)?(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?)$/i,
    step: (m) => {
      const ms = Math.round(Number(m[1]) * (m[2]!.toLowerCase().startsWith('m') ? 1 : 1000));
      if (!Number.isFinite(ms) || ms > 300_000) return null;
      return { description: `Wait ${ms} ms`, action: 'demo.sleep', parameters: { ms } };
    },
  },
  {
    id: 'fetch',
    tool: 'http.request',
    pattern:
      /^(?:fetch|get|download|retrieve|load)\s+(?:the\s+)?(?:(?:page|url|json|document)\s+)?(?:at\s+|from\s+)?<?(https?:\/\/[^\s<>]+?)>?$/i,
    step: (m) => ({
      description: `Fetch ${m[1]}`,
      action: 'http.request',
      parameters: { url: m[1], method: 'GET' },
    }),
  },
  {
    id: 'counter',
    tool: 'demo.counter',
    pattern: /^(?:increment|bump|count)\s+(?:the\s+)?(?:counter\s+)?["']?([\w.:-]{1,200})["']?$/i,
    step: (m) => ({
      description: `Increment counter "${m[1]}"`,
      action: 'demo.counter',
      parameters: { key: m[1] },
    }),
  },
];

/** "fetch X then echo done", "wait 5 ms; echo hi", "…, and then …". */
const SEPARATOR = /\s*(?:;|,?\s+and\s+then\s+|,?\s+then\s+)\s*/i;

function clauseRule(clause: Clause): Rule {
  return {
    id: `builtin.${clause.id}`,
    description: `One ${clause.tool} step for a goal like "${clause.pattern.source}"`,
    match: (state) => hasTool(state, clause.tool) && clause.pattern.test(tidy(state.goal)),
    toPlanStep: (state) => {
      const m = clause.pattern.exec(tidy(state.goal));
      const made = m && clause.step(m);
      return made ? { id: clause.id, ...made, dependencies: [] } : null;
    },
  };
}

/** Several clauses in a row, each depending on the one before. Every clause must be understood. */
const sequenceRule: Rule = {
  id: 'builtin.sequence',
  description:
    'Clauses joined by "then" or ";", each served by one of the built-in clause rules, run in order',
  match: (state) => tidy(state.goal).split(SEPARATOR).length > 1,
  toPlanStep: (state) => {
    const steps: PlanStep[] = [];
    const used = new Map<string, number>();
    for (const text of tidy(state.goal).split(SEPARATOR)) {
      const step = matchClause(state, tidy(text));
      if (!step) return null;
      const n = (used.get(step.clause) ?? 0) + 1;
      used.set(step.clause, n);
      const id = n === 1 ? step.clause : `${step.clause}_${n}`;
      const previous = steps.at(-1);
      steps.push({ id, ...step.made, dependencies: previous ? [previous.id] : [] });
    }
    return steps;
  },
};

function matchClause(state: PlannerState, text: string) {
  for (const clause of CLAUSES) {
    if (!hasTool(state, clause.tool)) continue;
    const m = clause.pattern.exec(text);
    const made = m && clause.step(m);
    if (made) return { clause: clause.id, made };
  }
  return null;
}

function hasTool(state: PlannerState, name: string): boolean {
  return state.tools.some((t) => t.name === name);
}

/** Trims whitespace and a final full stop or exclamation mark. */
function tidy(text: string): string {
  return text
    .trim()
    .replace(/[.!]+$/, '')
    .trim();
}

/**
 * The built-in rules, most specific first.
 * @example new RuleBasedPlanner({ rules: builtinRules, clock, ids }).planFor({ goal: 'wait 50 ms', tools, limits })
 */
export const builtinRules: readonly Rule[] = [sequenceRule, ...CLAUSES.map(clauseRule)];
