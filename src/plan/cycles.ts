/**
 * Cycles and order in a dependency graph, over positions (`depIndex[i]` lists what step i depends
 * on). Iterative throughout — no recursion — so a 100k-step chain is fine.
 */

/** The part of a plan graph these functions read. */
export type DependencyLists = {
  readonly ids: readonly string[];
  readonly depIndex: readonly (readonly number[])[];
};

/**
 * Every cycle, one per strongly connected component (so two separate loops are both reported),
 * each as ids with the first repeated at the end. A cycle starts at its earliest step in plan order
 * and follows dependencies: `['a','b','a']` means a depends on b and b on a. Iterative Tarjan, then
 * a breadth-first search inside each component for its shortest cycle through that step.
 */
export function findCycles(graph: DependencyLists): string[][] {
  // A complete topological order proves there is no cycle: the usual answer, without Tarjan.
  if (orderOf(graph).complete) return [];
  const adj = graph.depIndex;
  const n = adj.length;
  const order = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const stack = new Int32Array(n);
  const callNode = new Int32Array(n);
  const callEdge = new Int32Array(n);
  const component = new Int32Array(n).fill(-1);
  const starts: number[] = [];
  let sp = 0;
  let csp = 0;
  let counter = 0;
  const enter = (v: number): void => {
    order[v] = low[v] = counter++;
    stack[sp++] = v;
    onStack[v] = 1;
    callNode[csp] = v;
    callEdge[csp] = 0;
    csp++;
  };

  for (let s = 0; s < n; s++) {
    if (order[s] !== -1) continue;
    enter(s);
    while (csp > 0) {
      const v = callNode[csp - 1]!;
      const edges = adj[v]!;
      const e = callEdge[csp - 1]!;
      if (e < edges.length) {
        callEdge[csp - 1] = e + 1;
        const w = edges[e]!;
        if (order[w] === -1) enter(w);
        else if (onStack[w] === 1 && order[w]! < low[v]!) low[v] = order[w]!;
        continue;
      }
      csp--;
      if (csp > 0) {
        const u = callNode[csp - 1]!;
        if (low[v]! < low[u]!) low[u] = low[v]!;
      }
      if (low[v] !== order[v]) continue;
      let first = v;
      let size = 0;
      let w: number;
      do {
        w = stack[--sp]!;
        onStack[w] = 0;
        component[w] = v;
        if (w < first) first = w;
        size++;
      } while (w !== v);
      if (size > 1 || adj[v]!.includes(v)) starts.push(first);
    }
  }

  starts.sort((a, b) => a - b);
  const parent = new Int32Array(n).fill(-1);
  const cycles: string[][] = [];
  for (const start of starts) {
    const comp = component[start]!;
    const queue: number[] = [start];
    let end = -1;
    for (let q = 0; q < queue.length && end < 0; q++) {
      const u = queue[q]!;
      const edges = adj[u]!;
      for (let k = 0; k < edges.length; k++) {
        const w = edges[k]!;
        if (component[w] !== comp) continue;
        if (w === start) {
          end = u;
          break;
        }
        if (parent[w] === -1) {
          parent[w] = u;
          queue.push(w);
        }
      }
    }
    const path: number[] = [];
    for (let u = end; u !== start; u = parent[u]!) path.push(u);
    path.push(start);
    path.reverse();
    path.push(start);
    cycles.push(path.map((i) => graph.ids[i]!));
    for (let q = 0; q < queue.length; q++) parent[queue[q]!] = -1;
  }
  return cycles;
}

/** The first cycle found, as ids with the first repeated at the end (`['a','b','c','a']`), or null. */
export function findCycle(graph: DependencyLists): string[] | null {
  return findCycles(graph)[0] ?? null;
}

export type TopologicalOrder = { order: number[]; complete: boolean };

const orders = new WeakMap<DependencyLists, Readonly<TopologicalOrder>>();

/**
 * {@link topologicalOrder}, computed once per graph and shared: validation's cycle check and the
 * estimates both need it. Treat the result as read-only.
 */
export function orderOf(graph: DependencyLists): Readonly<TopologicalOrder> {
  let known = orders.get(graph);
  if (known === undefined) {
    known = topologicalOrder(graph);
    orders.set(graph, known);
  }
  return known;
}

/**
 * Step positions in an order where each comes after its dependencies (Kahn's algorithm). Steps on
 * or behind a cycle are left out, so `complete` is false for a cyclic graph.
 */
export function topologicalOrder(graph: DependencyLists): TopologicalOrder {
  const adj = graph.depIndex;
  const n = adj.length;
  // Dependents in one flat array (CSR): no array per step on 100k-step plans.
  const waiting = new Int32Array(n);
  const start = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) {
    const deps = adj[i]!;
    waiting[i] = deps.length;
    for (let k = 0; k < deps.length; k++) start[deps[k]! + 1]!++;
  }
  for (let i = 0; i < n; i++) start[i + 1]! += start[i]!;
  const fill = start.slice(0, n);
  const dependents = new Int32Array(start[n]!);
  for (let i = 0; i < n; i++) {
    const deps = adj[i]!;
    for (let k = 0; k < deps.length; k++) dependents[fill[deps[k]!]!++] = i;
  }

  const order: number[] = [];
  for (let i = 0; i < n; i++) if (waiting[i] === 0) order.push(i);
  for (let q = 0; q < order.length; q++) {
    const u = order[q]!;
    for (let e = start[u]!; e < start[u + 1]!; e++) {
      const d = dependents[e]!;
      if (--waiting[d]! === 0) order.push(d);
    }
  }
  return { order, complete: order.length === n };
}
