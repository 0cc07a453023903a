/**
 * The dashboard's graph layout (src/ui/layout.ts), in plain Node: steps side by side in a column are
 * stacked in plan order, top to bottom, with the edges drawn to where their steps are.
 */
import { describe, expect, it } from 'vitest';
import { layoutGraph, NODE_H, NODE_W, type GraphInput } from '../../src/ui/layout';

/** `root`, then `a1…an` after it, then `b1…bn`, each reading its `a` (an inferred dependency). */
function fanOut(n: number): GraphInput {
  const steps: GraphInput = [{ id: 'root', dependencies: [], inferred: [] }];
  for (let i = 1; i <= n; i++) steps.push({ id: `a${i}`, dependencies: ['root'], inferred: [] });
  for (let i = 1; i <= n; i++) steps.push({ id: `b${i}`, dependencies: [], inferred: [`a${i}`] });
  return steps;
}

describe('the dashboard’s graph layout', () => {
  it.each([2, 5, 12])('stacks %i parallel steps in plan order, top to bottom', (n) => {
    const laid = layoutGraph(fanOut(n));
    const y = (id: string) => laid.nodes.get(id)!.y;
    for (const col of ['a', 'b']) {
      const ys = Array.from({ length: n }, (_, i) => y(`${col}${i + 1}`));
      expect(ys).toEqual([...ys].sort((p, q) => p - q));
    }
    // Everything inside the drawing, edges ending at their steps.
    for (const node of laid.nodes.values()) {
      expect(node.y).toBeGreaterThanOrEqual(0);
      expect(node.y + NODE_H).toBeLessThanOrEqual(laid.height);
      expect(node.x + NODE_W).toBeLessThanOrEqual(laid.width);
    }
    for (const e of laid.edges) {
      const to = laid.nodes.get(e.to)!;
      const end = e.points.at(-1)!;
      expect(end.y).toBeGreaterThanOrEqual(to.y);
      expect(end.y).toBeLessThanOrEqual(to.y + NODE_H);
    }
  });
});
