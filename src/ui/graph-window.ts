/**
 * What of a big plan's graph is drawn: the steps and edges in the part of the graph its box shows, and
 * a screen around it. A 100,000-step graph drawn whole was 700,000 elements — 40 s to draw the first
 * time, and every later frame of the page slow with them — of which a box shows twenty. Plans up to
 * {@link WINDOWED_FROM} steps are drawn whole, as before (every step in the page, for find-in-page and
 * the tab order).
 */
import type { LaidEdge, Layout } from './layout';

/** Plans of more steps than this draw only the part of the graph in view. */
export const WINDOWED_FROM = 2000;

/** The part of the graph shown, in the graph's own units (a fitted graph is drawn scaled down). */
export type GraphWindow = { left: number; top: number; width: number; height: number };

/** The box's view of the graph: its scroll position and size over the scale the graph is drawn at. */
export function windowOf(box: HTMLElement, scale: number): GraphWindow {
  return {
    left: box.scrollLeft / scale,
    top: box.scrollTop / scale,
    width: box.clientWidth / scale,
    height: box.clientHeight / scale,
  };
}

/**
 * The ids of the steps to draw and the edges to draw: those within `window`, grown by its own size on
 * every side (a scroll of a screen shows drawn steps while the next window is drawn). Null `window`:
 * all of them.
 */
export function drawnPart(
  laid: Layout,
  window: GraphWindow | null,
  nodeW: number,
  nodeH: number,
): { steps: Set<string> | null; edges: LaidEdge[] } {
  if (!window) return { steps: null, edges: laid.edges };
  const [x0, x1] = [window.left - window.width, window.left + 2 * window.width];
  const [y0, y1] = [window.top - window.height, window.top + 2 * window.height];
  const steps = new Set<string>();
  for (const n of laid.nodes.values())
    if (n.x + nodeW >= x0 && n.x <= x1 && n.y + nodeH >= y0 && n.y <= y1) steps.add(n.id);
  const edges = laid.edges.filter((e) => {
    // Drawn when the box around its points meets the window (a long edge may cross it end to end).
    let [ex0, ex1, ey0, ey1] = [Infinity, -Infinity, Infinity, -Infinity];
    for (const p of e.points) {
      ex0 = Math.min(ex0, p.x);
      ex1 = Math.max(ex1, p.x);
      ey0 = Math.min(ey0, p.y);
      ey1 = Math.max(ey1, p.y);
    }
    return ex1 >= x0 && ex0 <= x1 && ey1 >= y0 && ey0 <= y1;
  });
  return { steps, edges };
}
