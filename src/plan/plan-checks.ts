/**
 * The per-plan validation rules of SPEC §2, run over a normalised plan and, within `max_depth`, over
 * each of its sub-plans. Findings are appended, never thrown: validation reports everything at once.
 */
import type { z } from 'zod';
import type { Finding, Limits } from './findings';
import { buildGraph, findCycles } from './graph';
import type { PlanGraph } from './graph';
import { nearestKey } from './key-suggestions';
import { isRecord } from './model';
import type { Plan, PlanInput, PlanStep, PlanStepInput } from './model';
import { closedKeys } from './parameter-keys';
import { ReferenceTypeChecker } from './reference-types';
import { formatPath } from './references';
import type { PathSegment, Reference } from './references';
import type { AnyTool, ToolRegistry } from '../executor/registry';

const PARAMETERS: readonly PathSegment[] = ['parameters'];
const FALLBACK_PARAMETERS: readonly PathSegment[] = ['fallback_action', 'parameters'];

export class PlanChecker {
  readonly #tools: ToolRegistry;
  readonly #limits: Limits;
  readonly #findings: Finding[];

  constructor(tools: ToolRegistry, limits: Limits, findings: Finding[]) {
    this.#tools = tools;
    this.#limits = limits;
    this.#findings = findings;
  }

  /**
   * Checks `plan` (parsed from `input`, which still tells omitted fields from defaulted ones) at
   * nesting `depth`; `prefix` is prepended to step ids in findings (`parent/`).
   */
  check(plan: Plan, input: PlanInput, depth: number, prefix: string): { graph: PlanGraph; cyclic: boolean } {
    const { steps } = plan;
    this.#checkSize(steps.length, prefix);

    const toolOf: (AnyTool | undefined)[] = [];
    for (let i = 0; i < steps.length; i++) toolOf.push(this.#tools.get(steps[i]!.action));
    const types = new ReferenceTypeChecker(steps, toolOf, this.#tools, prefix);
    const graph = buildGraph(steps, types.visit);

    let nextDuplicate = 0; // graph.duplicates is in plan order
    for (let i = 0; i < steps.length; i++) {
      const step = steps[i]!;
      const sid = prefix + step.id;
      if (graph.duplicates[nextDuplicate] === i) {
        nextDuplicate++;
        this.#findings.push({
          code: 'duplicate_step',
          message: `Duplicate step id: ${step.id}`,
          step_id: sid,
          path: ['id'],
        });
      }
      this.#checkStep(step, toolOf[i], sid, input.steps[i]);
      // These lists are nearly always empty; indexed loops skip for…of's iterator allocation.
      const problems = graph.problems[i]!;
      for (let k = 0; k < problems.length; k++) {
        const p = problems[k]!;
        this.#findings.push({
          code: 'bad_reference',
          message: `Step "${sid}": ${p.message}`,
          step_id: sid,
          path: p.path,
        });
      }
      const missing = graph.missing[i]!;
      for (let k = 0; k < missing.length; k++) this.#unknownDependency(graph, step, i, sid, missing[k]!);
      const typed = types.findingsOf(i);
      for (let k = 0; k < typed.length; k++) this.#findings.push(typed[k]!);
      // A TEA workflow's parameters are Jinja templates, rendered (and checked by the tool) at run time.
      // A step with a sub-plan runs the sub-plan (agent.dispatch), never its action: nothing to check.
      if (plan.metadata?.tea === undefined && step.subplan == null)
        this.#checkInput(toolOf[i], step.parameters, PARAMETERS, sid, graph, i);
      const fb = step.fallback_action;
      if (fb != null && typeof fb === 'object' && fb.parameters !== undefined) {
        this.#checkInput(this.#tools.get(fb.action), fb.parameters, FALLBACK_PARAMETERS, sid, graph, i);
      }
    }

    const cycles = findCycles(graph);
    for (const cycle of cycles) {
      this.#findings.push({
        code: 'cycle',
        message: `Cycle detected: ${cycle.join(' -> ')}`,
        step_id: prefix + cycle[0]!,
      });
    }

    // Deeper sub-plans were reported as too_deep while preparing the input.
    if (depth + 1 <= this.#limits.max_depth) {
      for (let i = 0; i < steps.length; i++) {
        const sub = steps[i]!.subplan;
        const subInput = input.steps[i]?.subplan;
        if (sub && subInput) this.check(sub, subInput, depth + 1, `${prefix}${steps[i]!.id}/`);
      }
    }
    return { graph, cyclic: cycles.length > 0 };
  }

  #checkSize(count: number, prefix: string): void {
    if (count <= this.#limits.max_steps) return;
    const owner = prefix.slice(0, -1);
    const f: Finding = {
      code: 'too_many_steps',
      message: `${owner === '' ? 'The plan' : `The sub-plan of "${owner}"`} has ${count} steps; the limit (max_steps) is ${this.#limits.max_steps}`,
    };
    if (owner !== '') f.step_id = owner;
    this.#findings.push(f);
  }

  /** Tools exist; dependencies and fallbacks are declared where the configuration requires them. */
  #checkStep(step: PlanStep, tool: AnyTool | undefined, sid: string, input: PlanStepInput | undefined): void {
    if (tool === undefined) {
      this.#findings.push({
        code: 'unknown_tool',
        message: `Step "${sid}": unknown tool "${step.action}"${this.#why(step.action)}`,
        step_id: sid,
        path: ['action'],
      });
    }
    const fb = step.fallback_action;
    const fbName = typeof fb === 'string' ? fb : fb?.action;
    if (fbName !== undefined && !this.#tools.has(fbName)) {
      this.#findings.push({
        code: 'unknown_tool',
        message: `Step "${sid}": unknown fallback tool "${fbName}"${this.#why(fbName)}`,
        step_id: sid,
        path: typeof fb === 'string' ? ['fallback_action'] : ['fallback_action', 'action'],
      });
    }
    if (this.#limits.require_dependencies && input?.dependencies == null) {
      this.#findings.push({
        code: 'missing_dependencies',
        message: `Step "${sid}" does not list its dependencies (give "dependencies": [] when it has none)`,
        step_id: sid,
        path: ['dependencies'],
      });
    }
    if (this.#limits.require_fallbacks && fb == null) {
      this.#findings.push({
        code: 'missing_fallback',
        message: `Step "${sid}" has no fallback_action`,
        step_id: sid,
        path: ['fallback_action'],
      });
    }
  }

  /**
   * What to say after an unknown tool's name: why its source may lack it, else the registered tool it
   * likely meant (past 20 tools the list is left out, so a misspelt `mcp.weather.forcast` would
   * otherwise get no hint) and what there is.
   */
  #why(name: string): string {
    const reason = this.#tools.unavailableReason(name);
    if (reason !== undefined) return ` (${reason})`;
    const names = this.#tools.names();
    const near = nearestKey(name, names);
    const meant = near === null ? '' : `did you mean "${near}"?`;
    const listed = names.length <= 20 ? `registered: ${names.join(', ') || 'none'}` : '';
    const said = [meant, listed].filter((part) => part !== '').join(' ');
    return said === '' ? '' : ` (${said})`;
  }

  #unknownDependency(graph: PlanGraph, step: PlanStep, i: number, sid: string, id: string): void {
    const explicit = step.dependencies.indexOf(id);
    const ref =
      explicit < 0 ? graph.refsOf(i).find((r) => r.source === 'steps' && r.stepId === id) : undefined;
    const f: Finding = { code: 'unknown_dependency', message: `Unknown subtask: ${id}`, step_id: sid };
    if (explicit >= 0) f.path = ['dependencies', explicit];
    else if (ref?.at) f.path = ref.at;
    // `steps.search.items` parses as the id "search.items"; say what was probably meant.
    const owner = ref ? knownPrefix(graph, id) : null;
    if (owner !== null) {
      f.code = 'bad_reference';
      f.message = `Step "${sid}": ${ref?.text ?? id} names no step "${id}"; to read from step "${owner}" write {{ steps.${owner}.output${id.slice(owner.length)} }}`;
    }
    this.#findings.push(f);
  }

  /**
   * Parameters against the tool's input schema. A reference stands for a value of unknown shape:
   * issues at or under a whole-string reference are left to the typed-reference check, and an
   * interpolated string is only held to being a string.
   */
  #checkInput(
    tool: AnyTool | undefined,
    params: unknown,
    base: readonly PathSegment[],
    sid: string,
    graph: PlanGraph,
    i: number,
  ): void {
    if (tool === undefined) return;
    const keys = closedKeys(tool.input);
    if (keys !== null) this.#unknownKeys(tool, keys, params, base, sid);
    const result = tool.input.safeParse(params);
    if (result.success) return;
    const refs = graph.refsOf(i);
    for (const issue of result.error.issues) {
      // A strict object's own report of them, said better above.
      if (keys !== null && issue.code === 'unrecognized_keys' && issue.path.length === 0) continue;
      const path = [...base, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))];
      if (coveredByReference(issue, path, refs)) continue;
      this.#findings.push({
        code: 'invalid_parameters',
        message: `Step "${sid}": ${formatPath(path)}: ${issue.message} (tool ${tool.name})`,
        step_id: sid,
        path,
      });
    }
  }

  /**
   * A key a closed input schema does not declare (`z.object` would drop it and run the step without
   * it): named, with the key it most likely meant and the keys the tool takes. Keys count whatever
   * their values, references included.
   */
  #unknownKeys(
    tool: AnyTool,
    keys: ReadonlySet<string>,
    params: unknown,
    base: readonly PathSegment[],
    sid: string,
  ): void {
    if (!isRecord(params)) return;
    let unknown: string[] | null = null;
    for (const key of Object.keys(params)) if (!keys.has(key)) (unknown ??= []).push(key);
    if (unknown === null) return;
    const known = [...keys];
    const named = unknown.slice(0, MAX_KEY_FINDINGS);
    for (const key of named) {
      const path = [...base, key];
      const near = nearestKey(key, known);
      const meant = near === null ? '' : ` (did you mean ${quoted(near)}?)`;
      this.#findings.push({
        code: 'invalid_parameters',
        message: `Step "${sid}": ${formatPath([...base, cut(key)])}: unknown parameter ${quoted(key)}${meant}; tool ${tool.name} ${takes(known)}`,
        step_id: sid,
        path,
      });
    }
    const more = unknown.length - named.length;
    if (more > 0) {
      this.#findings.push({
        code: 'invalid_parameters',
        message: `Step "${sid}": ${formatPath(base)}: ${more} more unknown parameters; tool ${tool.name} ${takes(known)}`,
        step_id: sid,
        path: [...base],
      });
    }
  }
}

/** Unknown parameter keys of one step named one finding each; the rest are counted in one more. */
const MAX_KEY_FINDINGS = 10;

/** What a tool's parameters are, for a finding: `takes a, b` (the first 20 of many, each cut). */
function takes(keys: readonly string[]): string {
  if (keys.length === 0) return 'takes no parameters';
  const shown = keys.slice(0, 20).map(cut).join(', ');
  return `takes ${shown}${keys.length > 20 ? ` and ${keys.length - 20} more` : ''}`;
}

/** A key as a message shows it: JSON-quoted (a line break stays on its line) and cut. */
function quoted(key: string): string {
  return JSON.stringify(cut(key));
}

/** Keys a plan or a listed schema gives can be any length; a message shows the first 64 characters. */
function cut(key: string): string {
  return key.length > 64 ? `${key.slice(0, 64)}…` : key;
}

/** The longest proper prefix of `id` (cut at a `.`) that is a step id, or null. */
function knownPrefix(graph: PlanGraph, id: string): string | null {
  for (let dot = id.lastIndexOf('.'); dot > 0; dot = id.lastIndexOf('.', dot - 1)) {
    const owner = id.slice(0, dot);
    if (graph.index.has(owner)) return owner;
  }
  return null;
}

function coveredByReference(
  issue: z.core.$ZodIssue,
  path: readonly PathSegment[],
  refs: readonly Reference[],
): boolean {
  for (const r of refs) {
    const at = r.at;
    if (at === undefined) continue;
    if (r.whole === true) {
      if (isPrefix(at, path)) return true;
    } else if (at.length === path.length && isPrefix(at, path)) {
      if (issue.code !== 'invalid_type' || issue.expected === 'string') return true;
    }
  }
  return false;
}

function isPrefix(prefix: readonly PathSegment[], path: readonly PathSegment[]): boolean {
  if (prefix.length > path.length) return false;
  for (let k = 0; k < prefix.length; k++) if (String(prefix[k]) !== String(path[k])) return false;
  return true;
}
