/**
 * `cloudflare:workers` for the object bench (scripts/bench-object.mjs), which runs the run object's own
 * code in Node: the base class is all PlanRun takes from the module.
 */
export class DurableObject<E = unknown> {
  constructor(
    protected readonly ctx: DurableObjectState,
    protected readonly env: E,
  ) {}
}
