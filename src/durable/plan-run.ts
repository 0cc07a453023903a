import { DurableObject } from 'cloudflare:workers';

/** One per run. STUB: being written. */
export class PlanRun extends DurableObject<Env> {}
