/**
 * The repository's own Worker, built with `edgeplan/worker` like any team's: no tools of its own; the
 * demo tools come with `DEMO_TOOLS=true` (`npm start`). Also exports the demo pack's counter object.
 */
import { createEdgeplan } from './worker-factory';

export { DemoCounters } from './worker-factory';

const edgeplan = createEdgeplan();

/** The run's Durable Object class (wrangler.toml binds it as `PLAN_RUN`). */
export const PlanRun = edgeplan.PlanRun;

export default edgeplan.default;
