/**
 * References type-checked before anything runs (SPEC §2): where the producing step's tool declares
 * an output schema, the path a reference reads must exist in it, and a whole-string reference must
 * have a type the consuming parameter accepts when that parameter expects a primitive. Where the run's
 * input is known (a plan for a run: a caller's, a model's, an approver's edit), a whole `{{ input.… }}` reference is held to the same rule by
 * the value it will read, and a parameter's `{{ input.… }}` the input does not have is refused (the
 * input never changes: the step could only be skipped). Anything the schemas do not describe (no
 * output schema, a sub-plan's result, a failure branch, initial state, a plan validated without an
 * input) passes: the check only rejects what it can prove wrong.
 */
import type { Finding } from './findings';
import type { ReferenceVisitor, StateWriter } from './graph';
import type { PlanStep } from './model';
import { formatPath, getPath } from './references';
import type { PathSegment, Reference } from './references';
import {
  ANY_KIND,
  Kind,
  compatible,
  describeKinds,
  expectsPrimitive,
  kindOfValue,
  schemaAt,
} from './schema-paths';
import type { SchemaAt } from './schema-paths';
import type { AnyTool, ToolRegistry } from '../executor/registry';

type SchemaMiss = Extract<SchemaAt, { ok: false }>;
const NONE: readonly Finding[] = Object.freeze([]);
type Miss = { step: number; from: number; at: SchemaMiss };

export class ReferenceTypeChecker {
  readonly #steps: readonly PlanStep[];
  readonly #toolOf: readonly (AnyTool | undefined)[];
  readonly #registry: ToolRegistry;
  /** Findings per step, handed out in step order by {@link findingsOf}. */
  readonly #findings = new Map<number, Finding[]>();
  readonly #prefix: string;
  /** The run's input, boxed: absent when not known (a plan validated on its own). */
  readonly #runInput: { value: unknown } | undefined;
  #kinds = 0;
  #miss: Miss | null = null;

  /**
   * `toolOf[i]` is the tool of step i's action (looked up once per plan by the caller); `prefix`
   * goes before step ids in findings (`parent/` in sub-plans); `runInput`, when known, is what
   * `{{ input.… }}` reads.
   */
  constructor(
    steps: readonly PlanStep[],
    toolOf: readonly (AnyTool | undefined)[],
    registry: ToolRegistry,
    prefix: string,
    runInput?: { value: unknown },
  ) {
    this.#steps = steps;
    this.#toolOf = toolOf;
    this.#registry = registry;
    this.#prefix = prefix;
    this.#runInput = runInput;
  }

  /** What the check found in step i's references. */
  findingsOf(i: number): readonly Finding[] {
    return this.#findings.get(i) ?? NONE;
  }

  #report(i: number, f: Finding): void {
    const list = this.#findings.get(i);
    if (list) list.push(f);
    else this.#findings.set(i, [f]);
  }

  /** Checks one reference of step `i`; give it to {@link buildGraph}, which knows the producers. */
  readonly visit: ReferenceVisitor = (i, ref, target, writers, below) => {
    if (ref.source === 'input' && this.#runInput === undefined) return;
    const read = ref.source === 'input' ? getPath(this.#runInput!.value, ref.path) : null;
    if (read !== null && !read.found && readsInParameters(ref)) {
      this.#reportMissingInput(i, ref);
      return;
    }
    const kinds = read !== null ? valueKind(read) : this.#referencedKinds(i, ref, target, writers, below);
    if (kinds === null || kinds === ANY_KIND || ref.whole !== true || ref.at === undefined) return;
    const tool = this.#consumer(i, ref.at);
    if (tool === undefined) return;
    // `at` is ['parameters', …] or ['fallback_action', 'parameters', …]: skip to the tool's input.
    const expected = schemaAt(tool.input, ref.at, 'input', ref.at[0] === 'parameters' ? 1 : 2);
    if (!expected.ok || !expectsPrimitive(expected.kinds) || compatible(kinds, expected.kinds)) return;
    const got = describeKinds(kinds & ~Kind.undefined);
    const want = describeKinds(expected.kinds & ~Kind.undefined);
    const sid = this.#sid(i);
    this.#report(i, {
      code: 'bad_reference',
      message:
        `Step "${sid}": ${ref.text} is ${got} but ${formatPath(ref.at)} of tool ${tool.name} expects ${want}` +
        (ref.source === 'input' ? " (as the run's input gives it)" : ''),
      step_id: sid,
      path: ref.at,
    });
  };

  /**
   * A parameter reading an input the run was not given: the run's input never changes, so the step
   * could only be skipped (`missing_input`) — and the run reported completed without it, as a
   * forgotten `--input team=sre` was. A `when` reading one is a condition, false without it.
   */
  #reportMissingInput(i: number, ref: Reference): void {
    const sid = this.#sid(i);
    const input = this.#runInput!.value;
    const keys =
      input !== null && typeof input === 'object' && !Array.isArray(input) ? Object.keys(input) : [];
    const has =
      keys.length === 0
        ? 'it has none'
        : `it has ${keys.slice(0, 10).join(', ')}${keys.length > 10 ? ', …' : ''}`;
    const first = ref.path[0];
    const hint =
      ref.path.length === 1 && typeof first === 'string' ? ` (edgeplan run … --input ${first}=…)` : '';
    this.#report(i, {
      code: 'bad_reference',
      message:
        `Step "${sid}": ${ref.text} reads input.${formatRefPath(ref.path)}, which the run's input does not have (${has}): ` +
        `give it in the run's input${hint}, or the step could never run`,
      step_id: sid,
      path: ref.at!,
    });
  }

  #sid(i: number): string {
    return this.#prefix + (this.#steps[i]?.id ?? '');
  }

  /** The kinds a reference can hold, ANY_KIND when unknowable, or null after reporting a bad path. */
  #referencedKinds(
    i: number,
    ref: Reference,
    target: number,
    writers: readonly StateWriter[],
    below: readonly number[],
  ): number | null {
    this.#kinds = 0;
    this.#miss = null;
    if (ref.source === 'steps') {
      if (target < 0) return null; // reported as an unknown dependency
      if (!this.#add(target, ref.path, 0)) return ANY_KIND;
    } else {
      // Something below the path is written separately: the value is assembled, not one output.
      if (below.length > 0) return ANY_KIND;
      // Not written by this plan: initial state, which nothing here describes.
      if (writers.length === 0) return ANY_KIND;
      for (let k = 0; k < writers.length; k++) {
        const w = writers[k]!;
        // A root writer (length 0) merges whatever keys its result has: the path may come from it
        // or from anything before it, which no schema says.
        if (w.step === i || w.branch === 'failure' || w.length === 0) return ANY_KIND;
        if (!this.#add(w.step, ref.path, w.length)) return ANY_KIND;
      }
    }
    if (this.#kinds !== 0 || this.#miss === null) return this.#kinds;
    this.#reportMiss(i, ref, this.#miss);
    return null;
  }

  /** Adds what step j's output holds at `path` (from `from`); false when it declares no schema. */
  #add(j: number, path: readonly PathSegment[], from: number): boolean {
    const at = this.#outputAt(j, path, from);
    if (at === null) return false;
    if (at.ok) this.#kinds |= at.kinds;
    else this.#miss ??= { step: j, from, at };
    return true;
  }

  /** What step `j`'s output schema says is at `path` (from `from` on); null when it declares none. */
  #outputAt(j: number, path: readonly PathSegment[], from: number): SchemaAt | null {
    const tool = this.#steps[j]?.subplan ? undefined : this.#toolOf[j];
    return tool?.output === undefined ? null : schemaAt(tool.output, path, 'output', from);
  }

  #reportMiss(i: number, ref: Reference, { step, from, at }: Miss): void {
    const sid = this.#sid(i);
    const field = formatPath(ref.path.slice(from, from + at.at + 1));
    const has = at.keys.length > 0 ? ` (it has ${at.keys.join(', ')})` : '';
    const f: Finding = {
      code: 'bad_reference',
      message: `Step "${sid}": ${ref.text} reads "${field}", which the output of step "${this.#steps[step]?.id}" (tool ${this.#toolOf[step]?.name}) does not have${has}`,
      step_id: sid,
    };
    if (ref.at) f.path = ref.at;
    this.#report(i, f);
  }

  /** The tool a reference at `at` (a place in step i) is a parameter of. */
  #consumer(i: number, at: readonly PathSegment[]): AnyTool | undefined {
    if (at[0] === 'parameters') return this.#toolOf[i];
    const fb = this.#steps[i]?.fallback_action;
    if (at[0] === 'fallback_action' && fb != null && typeof fb === 'object')
      return this.#registry.get(fb.action);
    return undefined;
  }
}

/** A reference in a step's parameters or its fallback's, which the step needs to run. */
function readsInParameters(ref: Reference): boolean {
  const at = ref.at;
  if (at === undefined) return false;
  return at[0] === 'parameters' || (at[0] === 'fallback_action' && at[1] === 'parameters');
}

/** `a.b[0]` for a path under `input.` */
function formatRefPath(path: readonly PathSegment[]): string {
  return path
    .map((p, k) => (typeof p === 'number' ? `[${p}]` : k === 0 ? String(p) : `.${String(p)}`))
    .join('');
}

/** The kind of a value read from the run's input; a path it does not have reads nothing (undefined). */
function valueKind(read: { found: boolean; value?: unknown }): number {
  return read.found ? kindOfValue(read.value) : Kind.undefined;
}
