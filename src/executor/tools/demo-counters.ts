import { DurableObject } from 'cloudflare:workers';

/** Durable counters behind `demo.counter`. STUB: being written. */
export class DemoCounters extends DurableObject<Env> {}
