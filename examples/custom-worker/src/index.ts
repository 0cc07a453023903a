/**
 * A team's own edgeplan Worker: the whole runtime from `edgeplan/worker`, plus the team's tools
 * (src/tools.ts). wrangler binds the exports `PlanRun` (the run's Durable Object) and `default`
 * (HTTP + queue).
 */
import { createEdgeplan } from 'edgeplan/worker';
import { tools } from './tools';

const edgeplan = createEdgeplan({ tools });

export const PlanRun = edgeplan.PlanRun;
export default edgeplan.default;
