/**
 * The plan as a graph: a node per step coloured by status (updated live), explicit dependencies
 * drawn solid and reference-inferred ones dashed, the critical path highlighted. Every node carries
 * `data-step-id` and `data-status` (the contract tests rely on). Click a node for its details.
 * The graph scrolls in its box at its own size; when it is wider than the box, "Fit to width" draws
 * the whole of it at the box's width (a phone's 390 px showed a three-step plan's first two steps
 * only, a desktop's graph box a thirty-step plan's first third). An edge with more of the graph
 * behind it fades out, so a cut step reads as "scroll on", not as the end of the plan (at 1280 px the
 * box cut a six-step plan's fifth step in half with nothing to say there was a sixth).
 */
import { memo } from 'preact/compat';
import { useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { StepView } from '../../client';
import { attemptBadge, attemptText } from '../../client/attempt-text';
import { layoutGraph, NODE_H, NODE_W } from '../layout';
import { drawnPart, windowOf, WINDOWED_FROM, type GraphWindow } from '../graph-window';

export type DagProps = {
  steps: StepView[];
  inferred: Record<string, string[]>;
  critical: string[];
  selected: string | null;
  onSelect: (id: string) => void;
};

/**
 * A node's id and action are drawn whole and cut at its edge (clip paths below), an ellipsis drawn
 * where they are cut: the text is what it names (a step's name holds what it shows, for a voice user
 * who says it), not "build_release_cand…". Cut where about this many characters fill the width.
 */
const ID_CHARS = 19;
const ACTION_CHARS = 23;
/** Where the text is cut; with an attempt count at the right, shorter. */
const TEXT_W = NODE_W - 20;
const SHORT_W = NODE_W - 48;

/**
 * What the graph draws, as text: each step's id, action, status, dependencies (listed and inferred)
 * and attempt badge and words, the critical path and the selection. The page redraws for much the
 * graph does not show (a count, the event log, its reading of the run's past), and a 100,000-step
 * graph drawn again each time (700,000 elements, each redraw measuring the box) took 3 s a redraw.
 * Compared as text, not step by step: the run's fold changes its steps in place, so the steps drawn
 * last time are the very objects given now, changed already.
 */
function drawnText({ steps, inferred, critical, selected }: DagProps): string {
  const lines = steps.map(
    (s) =>
      `${s.id}\t${s.action}\t${s.status}\t${s.dependencies.join(',')}\t${(inferred[s.id] ?? []).join(',')}\t${attemptBadge(s)}\t${attemptText(s)}`,
  );
  return `${selected ?? ''}\n${critical.join(',')}\n${lines.join('\n')}`;
}

/**
 * The graph drawn again only when what it draws changed (`drawn`, drawnText). `onSelect` is not
 * compared: the page passes a new function each render that selects the same way.
 */
const DrawnGraph = memo<DagProps & { drawn: string }>(DagGraph, (a, b) => a.drawn === b.drawn);

/** The plan's graph, drawn again when what it draws changed. */
export function Dag(props: DagProps) {
  return <DrawnGraph {...props} drawn={drawnText(props)} />;
}

function DagGraph({ steps, inferred, critical, selected, onSelect }: DagProps) {
  // The layout depends on the plan's shape only, not on statuses: recomputed when the plan changes.
  const shape = steps
    .map((s) => `${s.id}<${s.dependencies.join(',')}|${(inferred[s.id] ?? []).join(',')}`)
    .join(';');
  const laid = useMemo(
    () =>
      layoutGraph(
        steps.map((s) => ({ id: s.id, dependencies: s.dependencies, inferred: inferred[s.id] ?? [] })),
      ),
    [shape],
  );
  const [fit, setFit] = useState(false);
  // The box's width, to offer "Fit to width" only for a graph wider than it.
  const box = useRef<HTMLDivElement>(null);
  const [boxWidth, setBoxWidth] = useState(Infinity);
  // Measured before the first paint: measured after it, "Fit to width" came a frame late and pushed
  // the graph down under the reader's eyes.
  // Which of the box's sides have more of the graph behind them.
  const [more, setMore] = useState({ left: false, right: false });
  const seeEdges = () => {
    const el = box.current;
    if (!el) return;
    const left = el.scrollLeft > 1;
    const right = el.scrollLeft + el.clientWidth < el.scrollWidth - 1;
    if (left !== more.left || right !== more.right) setMore({ left, right });
  };
  // A big plan: only the part of the graph in view is drawn (graph-window.ts), drawn again once a
  // scroll or a resize has moved the view half its size from the part drawn.
  const windowed = steps.length > WINDOWED_FROM;
  const [shown, setShown] = useState<GraphWindow>(() => ({
    left: 0,
    top: 0,
    width: innerWidth,
    height: innerHeight,
  }));
  const look = () => {
    const el = box.current;
    if (!el || !windowed || el.clientWidth === 0) return;
    const w = windowOf(el, fit ? el.clientWidth / laid.width : 1);
    const moved =
      Math.abs(w.left - shown.left) > w.width / 2 ||
      Math.abs(w.top - shown.top) > w.height / 2 ||
      w.width !== shown.width ||
      w.height !== shown.height;
    if (moved) setShown(w);
  };
  // The observer below is set up once: it calls the render's latest `look`.
  const latestLook = useRef(look);
  latestLook.current = look;
  const part = useMemo(
    () => drawnPart(laid, windowed ? shown : null, NODE_W, NODE_H),
    [laid, windowed, shown],
  );
  const drawn = part.steps ? steps.filter((s) => part.steps!.has(s.id)) : steps;
  useLayoutEffect(seeEdges);
  useLayoutEffect(look, [fit, laid]);
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    const measure = () => {
      setBoxWidth(el.clientWidth);
      latestLook.current();
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, [steps.length === 0]);
  const onPath = new Set(critical);
  const criticalEdge = (from: string, to: string) => {
    const i = critical.indexOf(from);
    return i >= 0 && critical[i + 1] === to;
  };
  if (steps.length === 0) return <p class="muted">No plan yet.</p>;
  return (
    <div class="dag-box">
      {fit || laid.width > boxWidth ? (
        <div class="dag-tools">
          <button type="button" class="dag-fit" aria-pressed={fit} onClick={() => setFit(!fit)}>
            {fit ? 'Actual size' : 'Fit to width'}
          </button>
        </div>
      ) : null}
      <div class="dag-frame">
        {more.left ? <div class="dag-more left" aria-hidden="true" /> : null}
        {more.right ? <div class="dag-more right" aria-hidden="true" /> : null}
        <div
          class="dag-scroll"
          ref={box}
          onScroll={() => {
            seeEdges();
            look();
          }}
        >
          <svg
            class={`dag${fit ? ' fit' : ''}`}
            width={laid.width}
            height={laid.height}
            viewBox={`0 0 ${laid.width} ${laid.height}`}
            // A group, not an image: an image's contents are hidden from assistive technology, and
            // the steps in it are buttons.
            role="group"
            aria-label={`Plan graph of ${steps.length} steps`}
          >
            <defs>
              <marker
                id="arrow"
                viewBox="0 0 10 10"
                refX="9"
                refY="5"
                markerWidth="7"
                markerHeight="7"
                orient="auto-start-reverse"
              >
                <path d="M 0 0 L 10 5 L 0 10 z" class="arrow" />
              </marker>
              <clipPath id="node-text">
                <rect width={TEXT_W} height={NODE_H} />
              </clipPath>
              <clipPath id="node-text-short">
                <rect width={SHORT_W} height={NODE_H} />
              </clipPath>
            </defs>
            {part.edges.map((e) => (
              <polyline
                key={`${e.from}>${e.to}`}
                data-from={e.from}
                data-to={e.to}
                class={`edge${e.inferred ? ' inferred' : ''}${criticalEdge(e.from, e.to) ? ' critical' : ''}`}
                points={e.points.map((p) => `${p.x},${p.y}`).join(' ')}
                marker-end="url(#arrow)"
              />
            ))}
            {drawn.map((s) => {
              const n = laid.nodes.get(s.id);
              if (!n) return null;
              // '×3' in a step's first round; '↻1/2' in a retry or re-run (its words in the name).
              const badge = attemptBadge(s);
              const retried = badge !== '';
              const tries = attemptText(s);
              const idCut = s.id.length > (retried ? ID_CHARS - 4 : ID_CHARS);
              return (
                <g
                  key={s.id}
                  class={`node status-${s.status}${onPath.has(s.id) ? ' critical' : ''}${selected === s.id ? ' selected' : ''}`}
                  data-step-id={s.id}
                  data-status={s.status}
                  transform={`translate(${n.x},${n.y})`}
                  role="button"
                  // SVG takes the lower-case attribute; `tabIndex` left the steps out of the tab order.
                  tabindex={0}
                  // What it shows first (so a voice user can say it), then its status; pressed: its
                  // details are the ones shown.
                  aria-label={`${s.id}${retried ? ` ${badge}` : ''} ${s.action}: ${s.status}${s.round && tries ? `, ${tries}` : ''}`}
                  aria-pressed={selected === s.id}
                  onClick={() => onSelect(s.id)}
                  // Enter and Space, as a button takes them (Space without scrolling the page).
                  onKeyDown={(ev) => {
                    if (ev.key !== 'Enter' && ev.key !== ' ') return;
                    ev.preventDefault();
                    onSelect(s.id);
                  }}
                >
                  {/* A cut id or action, whole on hover (a mouse user has no other way to read it there). */}
                  {idCut || s.action.length > ACTION_CHARS || s.round ? (
                    <title>{`${s.id} · ${s.action}${s.round && tries ? ` · ${tries}` : ''}`}</title>
                  ) : null}
                  <rect width={NODE_W} height={NODE_H} rx="6" />
                  {/* The trailing spaces: read apart, as they are seen (the name is "id ×n action: status"). */}
                  <text
                    x="10"
                    y="16"
                    class="node-id"
                    clip-path={`url(#${retried ? 'node-text-short' : 'node-text'})`}
                  >
                    {s.id}{' '}
                  </text>
                  {idCut ? (
                    <text x={retried ? SHORT_W : TEXT_W} y="16" class="node-id" aria-hidden="true">
                      …
                    </text>
                  ) : null}
                  {retried ? (
                    <text x={NODE_W - 8} y="16" class="node-id" text-anchor="end" data-attempts={badge}>
                      {badge}{' '}
                    </text>
                  ) : null}
                  <text x="10" y="31" class="node-action" clip-path="url(#node-text)">
                    {s.action}
                  </text>
                  {s.action.length > ACTION_CHARS ? (
                    <text x={TEXT_W} y="31" class="node-action" aria-hidden="true">
                      …
                    </text>
                  ) : null}
                </g>
              );
            })}
          </svg>
        </div>
      </div>
    </div>
  );
}
