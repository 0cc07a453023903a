/**
 * The per-plan validation rules of SPEC §2, run over a normalised plan and, within `max_depth`, over
 * each of its sub-plans. Findings are appended, never thrown: validation reports everything at once.
 */
import type { Finding, Limits, RunInput } from './findings';
import { buildGraph, findCycles } from './graph';
import type { PlanGraph } from './graph';
import { MAX_PLAN_STEPS } from './config';
import { isRecord } from './model';
import type { Plan, PlanInput, PlanStep, PlanStepInput } from './model';
import { nearestKey } from './key-suggestions';
import { withInputValues } from './input-values';
import { isPrefix, parameterProblems, unknownKeyProblems } from './parameter-problems';
import { ReferenceTypeChecker } from './reference-types';
import { formatPath } from './references';
import type { PathSegment } from './references';
import { uncheckedReason, type UncheckedParameters } from './unchecked-schema';
import type { AnyTool, ToolRegistry } from '../executor/registry';

const PARAMETERS: readonly PathSegment[] = ['parameters'];
const FALLBACK_PARAMETERS: readonly PathSegment[] = ['fallback_action', 'parameters'];

export class PlanChecker {
  readonly #tools: ToolRegistry;
  readonly #limits: Limits;
  readonly #findings: Finding[];
  /** Steps whose parameters no schema could check (unchecked-schema.ts): said, not refused. */
  readonly unchecked: UncheckedParameters[] = [];

  readonly #runInput: RunInput | undefined;

  /** `runInput`, when known, is what `{{ input.… }}` reads here and in every sub-plan (theirs is the run's). */
  constructor(tools: ToolRegistry, limits: Limits, findings: Finding[], runInput?: RunInput) {
    this.#tools = tools;
    this.#limits = limits;
    this.#findings = findings;
    this.#runInput = runInput;
  }

  /**
   * Checks `plan` (parsed from `input`, which still tells omitted fields from defaulted ones) at
   * nesting `depth`; `prefix` is prepended to step ids in findings (`parent/`).
   */
  check(plan: Plan, input: PlanInput, depth: number, prefix: string): { graph: PlanGraph; cyclic: boolean } {
    const { steps } = plan;
    this.#checkSize(steps.length, prefix);

    const tea = plan.metadata?.tea !== undefined;
    // Only the with: of each node, read as it is (any value is safe to walk): parsing all of
    // metadata.tea with teaMetaOf cost a 9,000-node workflow ~100 ms per validation.
    const teaParams: unknown = tea ? (plan.metadata!.tea as { params?: unknown }).params : undefined;
    const written = (id: string): unknown => (isRecord(teaParams) ? teaParams[id] : undefined);
    const toolOf: (AnyTool | undefined)[] = [];
    for (let i = 0; i < steps.length; i++) toolOf.push(this.#tools.get(steps[i]!.action));
    const types = new ReferenceTypeChecker(steps, toolOf, this.#tools, prefix, this.#runInput);
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
      // A step with a sub-plan runs the sub-plan (agent.dispatch), never its action: nothing to check.
      // A TEA workflow's values are Jinja templates, rendered (and checked by the tool) at run time;
      // its keys are as written.
      if (step.subplan == null) {
        if (!tea) this.#checkInput(toolOf[i], step.parameters, PARAMETERS, sid, graph, i, typed);
        else this.#checkKeys(toolOf[i], written(step.id) ?? step.parameters, sid);
      }
      const fb = step.fallback_action;
      if (fb != null && typeof fb === 'object' && fb.parameters !== undefined) {
        this.#checkInput(
          this.#tools.get(fb.action),
          fb.parameters,
          FALLBACK_PARAMETERS,
          sid,
          graph,
          i,
          typed,
        );
      } else if (!tea) this.#checkFallbackInput(step, sid, graph, i);
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
      message:
        `${owner === '' ? 'The plan' : `The sub-plan of "${owner}"`} has ${count} steps; the limit (max_steps) is ${this.#limits.max_steps}` +
        // What the one who submitted it can do; a model asked to repair it reads that the plan is long.
        (this.#limits.max_steps < MAX_PLAN_STEPS
          ? ` (a run's config.max_steps may be up to ${MAX_PLAN_STEPS})`
          : ''),
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
   * Parameters against the tool's input schema (parameter-problems.ts), each problem a finding at its
   * path in the step.
   */
  #checkInput(
    tool: AnyTool | undefined,
    params: unknown,
    base: readonly PathSegment[],
    sid: string,
    graph: PlanGraph,
    i: number,
    typed: readonly Finding[],
  ): void {
    if (tool === undefined) return;
    const why = uncheckedReason(tool.input);
    if (why !== null)
      this.unchecked.push({
        step_id: sid,
        tool: tool.name,
        path: [...base],
        message: `Step "${sid}": ${formatPath(base)} not checked: the input schema of ${tool.name} could not be read (${why}); its server checks them when the step runs`,
      });
    // Where the run's input decides a parameter, the tool judges the value it will get; what the
    // typed-reference check said of it already (reference-types.ts: a value of the wrong type) is not
    // said twice.
    const refs = graph.refsOf(i);
    const known =
      this.#runInput === undefined || this.#runInput.kindsOnly === true
        ? { params, replaced: [] }
        : withInputValues(params, base, refs, this.#runInput.value);
    const unknown = known.replaced.length === 0 ? refs : refs.filter((r) => !known.replaced.includes(r));
    const dataAt = known.replaced.map((r) => r.at!);
    for (const p of parameterProblems(tool, known.params, base, unknown, dataAt)) {
      const from = known.replaced.find((r) => isPrefix(r.at!, p.path));
      if (from && typed.some((f) => f.path !== undefined && isPrefix(from.at!, f.path))) continue;
      this.#findings.push({
        code: 'invalid_parameters',
        message: `Step "${sid}": ${p.message}${from ? ` — ${from.text} reads it from the run's input` : ''}`,
        step_id: sid,
        path: p.path,
      });
    }
  }

  /** Only the keys of parameters whose values are checked when the step runs (a TEA node's `with:`). */
  #checkKeys(tool: AnyTool | undefined, params: unknown, sid: string): void {
    if (tool === undefined) return;
    for (const p of unknownKeyProblems(tool, params, PARAMETERS)) {
      this.#findings.push({
        code: 'invalid_parameters',
        message: `Step "${sid}": ${p.message}`,
        step_id: sid,
        path: p.path,
      });
    }
  }

  /**
   * A fallback given as a tool's name (or as `{action}` alone) runs with the step's own parameters
   * (engine/decide.ts `actionFor`): when its tool cannot take them, the step would validate and fail
   * only once the fallback fires — one finding here instead, saying what does not fit and how to give
   * the fallback parameters of its own.
   */
  #checkFallbackInput(step: PlanStep, sid: string, graph: PlanGraph, i: number): void {
    const fb = step.fallback_action;
    if (fb == null || (typeof fb === 'object' && fb.parameters !== undefined)) return;
    const name = typeof fb === 'string' ? fb : fb.action;
    const tool = this.#tools.get(name);
    // The step's own tool was checked against them already; an unknown tool is its own finding.
    if (tool === undefined || name === step.action) return;
    const problems = parameterProblems(tool, step.parameters, PARAMETERS, graph.refsOf(i));
    if (problems.length === 0) return;
    const shown = problems.slice(0, MAX_FALLBACK_PROBLEMS).map((p) => p.message);
    if (problems.length > shown.length) shown.push(`${problems.length - shown.length} more`);
    const field = typeof fb === 'string' ? 'fallback_action' : 'fallback_action.action';
    this.#findings.push({
      code: 'invalid_parameters',
      message: `Step "${sid}": ${field} "${name}" runs with the step's parameters, which it cannot take: ${shown.join('; ')} — give the fallback parameters of its own: "fallback_action": {"action": "${name}", "parameters": {…}}`,
      step_id: sid,
      path: typeof fb === 'string' ? ['fallback_action'] : ['fallback_action', 'action'],
    });
  }
}

/** Problems quoted in the one finding of a fallback that cannot take the step's parameters. */
const MAX_FALLBACK_PROBLEMS = 5;

/** The longest proper prefix of `id` (cut at a `.`) that is a step id, or null. */
function knownPrefix(graph: PlanGraph, id: string): string | null {
  for (let dot = id.lastIndexOf('.'); dot > 0; dot = id.lastIndexOf('.', dot - 1)) {
    const owner = id.slice(0, dot);
    if (graph.index.has(owner)) return owner;
  }
  return null;
}
