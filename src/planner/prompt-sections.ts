/**
 * The pieces a planning prompt is assembled from: the tool list with JSON schemas, the limits,
 * strategy guidance, the required output shape, and — when re-planning — what has happened so far.
 * Each is plain text; `templates.ts` places them into a template.
 */
import type { ToolDescription } from '../executor/registry';
import type { Strategy } from '../plan/model';
import type { PlannerLimits, PlannerState } from './contracts';
import { textStart } from '../text-cut';

/** Largest JSON (characters) quoted for one value in a prompt; longer values are cut. */
const MAX_VALUE_CHARS = 2_000;

/**
 * One line per tool with its description, then its input (and output) JSON schema, compact. A
 * description is said on its one line: an MCP server's is its author's text, and with line breaks
 * it could write lines of its own into the prompt — a tool of another name, a section of limits.
 * @example renderTools(registry.describe())
 */
export function renderTools(tools: readonly ToolDescription[]): string {
  if (tools.length === 0) return '(no tools are available)';
  return tools
    .map((t) => {
      const description = t.description.replace(/\s+/g, ' ').trim();
      let s = `- ${t.name}: ${description}\n  input schema: ${compactSchema(t.input_schema)}`;
      if (t.output_schema !== undefined) s += `\n  output schema: ${compactSchema(t.output_schema)}`;
      return s;
    })
    .join('\n');
}

/** The limits as rules the model can follow. */
export function renderLimits(limits: PlannerLimits, strategy: Strategy): string {
  const lines = [
    `- At most ${limits.max_steps} steps${strategy === 'hierarchical' ? ' in any one plan or sub-plan' : ''}.`,
  ];
  if (strategy === 'hierarchical') lines.push(`- Sub-plans nested at most ${limits.max_depth} deep.`);
  else lines.push('- No sub-plans: one flat list of steps.');
  if (limits.token_budget != null) {
    lines.push(
      `- The whole plan may spend at most ${limits.token_budget} LLM tokens (give "estimated_tokens" per step).`,
    );
  }
  if (limits.require_fallbacks) {
    lines.push('- Every step must have a "fallback_action": a plan with a step without one is refused.');
  }
  return lines.join('\n');
}

const GUIDANCE: Record<Strategy, string> = {
  flat: 'flat — one list of steps; independent steps have no dependency between them so they can run in parallel.',
  hierarchical:
    'hierarchical — break complex steps into a "subplan" ({"steps": [...]}) of their own; a step with a sub-plan is done when its sub-plan is done and needs no "action".',
  iterative:
    'iterative — plan the whole route as you see it now; the plan will be revised as results come in.',
  react:
    'react — one tool call per turn: return a plan with only the FIRST step, its reasoning as the step\'s description ("Thought: …"), and the exit criteria in "success_criteria". You will see its observation and choose the next step then.',
  par: 'plan-act-reflect — give clear "success_criteria" and an "expected_output" for each step; each result will be checked against them.',
  staged:
    'staged — order the steps as stages (goal framing, decomposition, tool routing, synthesis) and make each depend on the one before.',
  manual: 'flat — one list of steps.',
};

/** What the strategy asks of the model. */
export function renderStrategyGuidance(strategy: Strategy): string {
  return GUIDANCE[strategy];
}

/** The required answer: one JSON object, its fields, and how references and dependencies work. */
export function renderOutputFormat(strategy: Strategy): string {
  const example =
    '{"goal": "…", "success_criteria": "…", "steps": [' +
    '{"id": "fetch", "description": "…", "action": "<tool name>", "parameters": {…}, "dependencies": []}, ' +
    '{"id": "summarize", "description": "…", "action": "<tool name>", "parameters": {"text": "{{ steps.fetch.output.body }}"}, "dependencies": ["fetch"]}]}';
  const lines = [
    'Return exactly one JSON object and nothing else (no prose, no code fence), of this shape:',
    example,
    'Rules:',
    '- "id": unique in the plan; letters, digits, "_", "." or "-".',
    '- "action": one of the tool names above, exactly; "parameters" must match that tool\'s input schema.',
    '- "dependencies": the ids of the steps this step needs; [] when none. Always include the field.',
    '- A parameter may use an earlier step\'s result: "{{ steps.<id>.output }}" or a path into it ("{{ steps.<id>.output.items[0].url }}"); the run\'s input is "{{ input.<path> }}". A step whose result is used must be listed in "dependencies".',
    '- Dependencies must not form a cycle.',
    '- Optional per step: "expected_output" (what a good result looks like), "fallback_action" (a tool to try if the step fails: its name alone runs it with the step\'s parameters, so only a tool that takes them; otherwise {"action": "<tool>", "parameters": {…}}), "estimated_tokens".',
  ];
  if (strategy === 'hierarchical') {
    lines.push('- Optional per step: "subplan": {"steps": [...]} with the same rules; its ids are its own.');
  }
  return lines.join('\n');
}

/**
 * The required answer when steps are streamed (seed 003 NDJSON): one event per line, each step
 * after the steps it depends on, so each can start as soon as it arrives.
 */
export function renderNdjsonOutputFormat(strategy: Strategy): string {
  const rules = renderOutputFormat(strategy).split('\n').slice(3);
  return [
    'Answer in NDJSON: one JSON object per line and nothing else (no prose, no code fence):',
    '{"type": "step", "step": {"id": "fetch", "description": "…", "action": "<tool name>", "parameters": {…}, "dependencies": []}}',
    'one such line per step, then a last line {"type": "finish"}.',
    'Emit each step only after every step it depends on: a step may list in "dependencies" only steps already emitted.',
    ...rules,
  ].join('\n');
}

/** The run's input, quoted, or an empty string when there is none. */
export function renderInput(input: unknown): string {
  if (input === undefined || input === null) return '';
  if (typeof input === 'object' && Object.keys(input).length === 0) return '';
  return `Run input (use it as "{{ input.<path> }}"): ${quote(input)}`;
}

/**
 * Re-planning context: the current plan with each step's status, completed results, and what went
 * wrong — with the rules for keeping completed work.
 */
export function renderReplanContext(state: PlannerState): string {
  const plan = state.plan;
  if (!plan) return '';
  const statuses = state.step_statuses ?? {};
  const results = state.step_results ?? {};
  const lines = [
    `This is a revision of plan ${plan.id} version ${plan.version}. Its steps and what happened:`,
  ];
  for (const step of plan.steps) {
    const status = statuses[step.id] ?? 'pending';
    let line = `- ${step.id} [${status}] ${step.action} ${quote(step.parameters)}; dependencies ${quote(step.dependencies)}`;
    if (status === 'completed' && step.id in results) line += `\n  result: ${quote(results[step.id])}`;
    lines.push(line);
  }
  if (state.state && Object.keys(state.state).length > 0) lines.push(`Run state: ${quote(state.state)}`);
  const f = state.failure;
  if (f) {
    lines.push(
      `What went wrong: ${f.step_id ? `step "${f.step_id}" failed` : 'the run failed'}${f.code ? ` (${f.code})` : ''}: ${f.reason}`,
    );
  }
  if (state.reason) lines.push(`Reason for the revision: ${state.reason}`);
  lines.push(
    'Return the complete new plan. Keep every completed step exactly as it is (same id, action, parameters): it will not run again and its result can be used by reference. Replace or change the steps that are not completed so the goal can still be reached.',
  );
  return lines.join('\n');
}

/** JSON for a prompt, cut at {@link MAX_VALUE_CHARS}. */
function quote(value: unknown): string {
  let s: string;
  try {
    s = JSON.stringify(value) ?? 'null';
  } catch {
    s = String(value);
  }
  return s.length > MAX_VALUE_CHARS ? `${textStart(s, MAX_VALUE_CHARS)}… (cut)` : s;
}

/** A JSON schema as one line, without `$schema` and the safe-integer bounds zod adds everywhere. */
function compactSchema(schema: unknown): string {
  return JSON.stringify(schema, (key, value: unknown) => {
    if (key === '$schema') return undefined;
    if (
      (key === 'maximum' && value === Number.MAX_SAFE_INTEGER) ||
      (key === 'minimum' && value === Number.MIN_SAFE_INTEGER)
    ) {
      return undefined;
    }
    return value;
  });
}
