/**
 * Hierarchical task network planning (SPEC §3, seed 003): compound tasks are decomposed by methods
 * until only primitive steps remain, which become a plan. Subtasks run in order unless their
 * compound task is marked `parallel`; ordering becomes step dependencies.
 */
import { EdgeplanError } from '../errors';
import type { Clock, IdSource, Plan, PlanStep } from '../plan/model';
import type { HTNNode, HTNPlanner, Planner, PlannerState } from './contracts';

/** Decompositions deeper than this are taken to be a method that recurses forever. */
const MAX_DECOMPOSITION_DEPTH = 32;

/** A way to decompose one compound task. */
export type HtnMethod = {
  id: string;
  /** The compound task this method decomposes (`HTNNode.task ?? HTNNode.id`). */
  task: string;
  /** Whether the method fits this node and state; methods that do not are skipped. */
  applicable?: (node: HTNNode, state: PlannerState) => boolean;
  subtasks: (node: HTNNode, state: PlannerState) => HTNNode[];
};

/** A task network: the root task for a state, and the methods. */
export type HtnDomain = {
  root: (state: PlannerState) => HTNNode;
  methods: readonly HtnMethod[];
};

/**
 * An {@link HTNPlanner} over a domain of methods: a compound node is decomposed by the first
 * applicable method for its task (in `node.methods` order when the node names some).
 * @example
 * const planner = new MethodHtnPlanner(domain, { clock, ids });
 * const plan = await planner.plan(state);
 */
export class MethodHtnPlanner implements HTNPlanner, Planner {
  readonly #domain: HtnDomain;
  readonly #sources: { clock: Clock; ids: IdSource };

  constructor(domain: HtnDomain, sources: { clock: Clock; ids: IdSource }) {
    this.#domain = domain;
    this.#sources = sources;
  }

  initialTask(state: PlannerState): Promise<HTNNode> {
    return Promise.resolve(this.#domain.root(state));
  }

  decompose(node: HTNNode, state: PlannerState): Promise<HTNNode[]> {
    const task = node.task ?? node.id;
    let candidates = this.#domain.methods.filter((m) => m.task === task);
    if (node.methods) {
      const order = node.methods;
      candidates = candidates
        .filter((m) => order.includes(m.id))
        .sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
    }
    const method = candidates.find((m) => m.applicable?.(node, state) ?? true);
    if (!method) {
      return Promise.reject(
        new EdgeplanError(
          'htn_no_method',
          `No applicable method decomposes task "${task}" (node "${node.id}")`,
        ),
      );
    }
    return Promise.resolve(method.subtasks(node, state));
  }

  plan(state: PlannerState): Promise<Plan> {
    return planWithHtn(this, state, this.#sources);
  }
}

/**
 * Expands an HTN planner's initial task into a plan of its primitive steps. A primitive keeps its
 * own dependencies and gains the exit steps of whatever ran before it; ids repeated by different
 * primitives get a `_2`, `_3`… suffix.
 */
export async function planWithHtn(
  planner: HTNPlanner,
  state: PlannerState,
  sources: { clock: Clock; ids: IdSource },
): Promise<Plan> {
  const steps: PlanStep[] = [];
  const seen = new Map<string, number>();

  const expand = async (node: HTNNode, depth: number, after: string[]): Promise<string[]> => {
    if (node.kind === 'primitive') {
      if (!node.primitive) throw new EdgeplanError('htn_invalid', `Primitive node "${node.id}" has no step`);
      const base = node.primitive.id;
      const n = (seen.get(base) ?? 0) + 1;
      seen.set(base, n);
      const id = n === 1 ? base : `${base}_${n}`;
      const dependencies = [...new Set([...node.primitive.dependencies, ...after])];
      steps.push({ ...node.primitive, id, dependencies });
      return [id];
    }
    if (depth >= MAX_DECOMPOSITION_DEPTH) {
      throw new EdgeplanError(
        'htn_too_deep',
        `Task "${node.id}" is decomposed more than ${MAX_DECOMPOSITION_DEPTH} levels deep`,
      );
    }
    const children = await planner.decompose(node, state);
    if (node.parallel) {
      const exits: string[] = [];
      for (const child of children) exits.push(...(await expand(child, depth + 1, after)));
      return exits;
    }
    let previous = after;
    for (const child of children) previous = await expand(child, depth + 1, previous);
    return previous;
  };

  await expand(await planner.initialTask(state), 0, []);
  return {
    id: sources.ids.id('plan'),
    version: 1,
    goal: state.goal,
    strategy: state.strategy ?? 'flat',
    steps,
    created_at: sources.clock.now().toISOString(),
    metadata: { planner: 'htn' },
  };
}
