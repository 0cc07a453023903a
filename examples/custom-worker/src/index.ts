/**
 * A team's own edgeplan Worker: the whole runtime from `edgeplan/worker`, plus the team's tools
 * (src/tools.ts). wrangler binds the exports `PlanRun` (the run's Durable Object) and `default`
 * (HTTP + queue). Modules of the project's own are imported with their `.ts` extension, which wrangler
 * bundles and tsc allows (tsconfig.json), and which Node's test runner needs to load src/tools.ts's own.
 */
import { createEdgeplan } from 'edgeplan/worker';
import { tools } from './tools.ts';

const edgeplan = createEdgeplan({ tools });

// A class, not `const PlanRun = edgeplan.PlanRun`: `wrangler types` names the binding's type
// `DurableObjectNamespace<import("./src/index").PlanRun>`, which needs a type of that name here.
export class PlanRun extends edgeplan.PlanRun {}
export default edgeplan.default;
