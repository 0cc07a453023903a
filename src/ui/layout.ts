/**
 * Where the plan's steps go on the page. Up to {@link DAGRE_LIMIT} steps: dagre's layered layout,
 * left to right, with routed edges. Larger plans: columns by dependency depth (longest path), steps
 * stacked in each column — linear in the plan, so a 1,000-step run draws at once — and straight edges.
 */
import { Graph, layout as dagreLayout } from '@dagrejs/dagre';

export const NODE_W = 168;
export const NODE_H = 40;
export const DAGRE_LIMIT = 250;

export type LaidNode = { id: string; x: number; y: number };
export type LaidEdge = { from: string; to: string; points: { x: number; y: number }[]; inferred: boolean };
export type Layout = { nodes: Map<string, LaidNode>; edges: LaidEdge[]; width: number; height: number };

export type GraphInput = { id: string; dependencies: string[]; inferred: string[] }[];

export function layoutGraph(steps: GraphInput): Layout {
  return steps.length <= DAGRE_LIMIT ? withDagre(steps) : byDepth(steps);
}

function edgesOf(steps: GraphInput): { from: string; to: string; inferred: boolean }[] {
  const ids = new Set(steps.map((s) => s.id));
  const out: { from: string; to: string; inferred: boolean }[] = [];
  for (const s of steps) {
    for (const d of s.dependencies) if (ids.has(d)) out.push({ from: d, to: s.id, inferred: false });
    for (const d of s.inferred)
      if (ids.has(d) && !s.dependencies.includes(d)) out.push({ from: d, to: s.id, inferred: true });
  }
  return out;
}

function withDagre(steps: GraphInput): Layout {
  const g = new Graph({ multigraph: false });
  g.setGraph({ rankdir: 'LR', nodesep: 16, ranksep: 48, marginx: 12, marginy: 12 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const s of steps) g.setNode(s.id, { width: NODE_W, height: NODE_H });
  const edges = edgesOf(steps);
  for (const e of edges) g.setEdge(e.from, e.to);
  dagreLayout(g);
  const nodes = new Map<string, LaidNode>();
  for (const s of steps) {
    const n = g.node(s.id) as { x: number; y: number };
    nodes.set(s.id, { id: s.id, x: n.x - NODE_W / 2, y: n.y - NODE_H / 2 });
  }
  const laid = edges.map((e) => ({
    ...e,
    points: (
      (g.edge(e.from, e.to) as { points?: { x: number; y: number }[] } | undefined)?.points ?? []
    ).slice(),
  }));
  const label = g.graph() as { width?: number; height?: number };
  // (dagre's height holds its margins: turned around it, the graph keeps its place.)
  if (upsideDown(steps, nodes)) mirror(nodes, laid, label.height ?? 0);
  return fit(nodes, laid, (label.width ?? 0) + 24, (label.height ?? 0) + 24);
}

/**
 * Whether dagre stacked the steps of its columns mostly against plan order: with no crossing either
 * way it may pick the reverse, and a plan's twelve regions read from region 12 down to region 1.
 * Counted over pairs of steps in the same column.
 */
function upsideDown(steps: GraphInput, nodes: Map<string, LaidNode>): boolean {
  const columns = new Map<number, LaidNode[]>();
  for (const s of steps) {
    const n = nodes.get(s.id)!;
    const col = columns.get(n.x);
    if (col) col.push(n);
    else columns.set(n.x, [n]);
  }
  let along = 0;
  let against = 0;
  for (const col of columns.values())
    for (let i = 0; i < col.length; i++)
      for (let j = i + 1; j < col.length; j++) {
        // col is in plan order: i was planned before j.
        if (col[i]!.y < col[j]!.y) along++;
        else if (col[i]!.y > col[j]!.y) against++;
      }
  return against > along;
}

/** The layout turned upside down: as good a layout (the same crossings), drawn the other way. */
function mirror(nodes: Map<string, LaidNode>, edges: LaidEdge[], height: number): void {
  for (const n of nodes.values()) n.y = height - n.y - NODE_H;
  for (const e of edges) for (const p of e.points) p.y = height - p.y;
}

/**
 * dagre sizes the graph by its nodes: an edge routed around them (a dependency that skips a rank)
 * can run outside, and was cut off at the top. Everything is moved in and the size grown to hold it.
 */
function fit(nodes: Map<string, LaidNode>, edges: LaidEdge[], width: number, height: number): Layout {
  const points = edges.flatMap((e) => e.points);
  const M = 12;
  const dx = Math.max(0, M - Math.min(M, ...points.map((p) => p.x)));
  const dy = Math.max(0, M - Math.min(M, ...points.map((p) => p.y)));
  if (dx || dy) {
    for (const n of nodes.values()) {
      n.x += dx;
      n.y += dy;
    }
    for (const p of points) {
      p.x += dx;
      p.y += dy;
    }
  }
  const right = Math.max(width + dx, ...points.map((p) => p.x + M));
  const bottom = Math.max(height + dy, ...points.map((p) => p.y + M));
  return { nodes, edges, width: right, height: bottom };
}

function byDepth(steps: GraphInput): Layout {
  const byId = new Map(steps.map((s) => [s.id, s]));
  const depth = new Map<string, number>();
  // Steps come in plan order, dependencies usually first; resolve iteratively, cycles count as 0.
  const visiting = new Set<string>();
  const depthOf = (id: string): number => {
    const known = depth.get(id);
    if (known !== undefined) return known;
    if (visiting.has(id)) return 0;
    visiting.add(id);
    const s = byId.get(id);
    let d = 0;
    for (const dep of [...(s?.dependencies ?? []), ...(s?.inferred ?? [])])
      if (byId.has(dep)) d = Math.max(d, depthOf(dep) + 1);
    visiting.delete(id);
    depth.set(id, d);
    return d;
  };
  const columns: string[][] = [];
  for (const s of steps) (columns[depthOf(s.id)] ??= []).push(s.id);
  const nodes = new Map<string, LaidNode>();
  const colW = NODE_W + 40;
  const rowH = NODE_H + 10;
  columns.forEach((col, c) =>
    col.forEach((id, r) => nodes.set(id, { id, x: 12 + c * colW, y: 12 + r * rowH })),
  );
  const edges = edgesOf(steps).map((e) => {
    const a = nodes.get(e.from)!;
    const b = nodes.get(e.to)!;
    return {
      ...e,
      points: [
        { x: a.x + NODE_W, y: a.y + NODE_H / 2 },
        { x: b.x, y: b.y + NODE_H / 2 },
      ],
    };
  });
  const tallest = Math.max(0, ...columns.map((c) => c.length));
  return { nodes, edges, width: 24 + columns.length * colW, height: 24 + tallest * rowH };
}
