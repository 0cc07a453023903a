/**
 * Cloudflare's published limits that shape edgeplan's code, each with the page that states it (read
 * 2026-12-01). `wrangler dev`, Miniflare and the Vitest pool enforce almost none of them, so a path
 * that must stay within one names it from here, and a test measures what one invocation sends.
 * Pure data: the engine and the library may read it.
 * @example
 * if (rows * width > PLATFORM_LIMITS.sqlBoundParameters.value) split();
 */

/** One published limit: its value in `unit`, what it bounds, and where Cloudflare says so. */
export type PlatformLimit = {
  readonly value: number;
  readonly unit: 'bytes' | 'calls' | 'messages' | 'parameters' | 'ms';
  readonly what: string;
  readonly source: string;
};

const WORKERS = 'https://developers.cloudflare.com/workers/platform/limits/';
const DURABLE_OBJECTS = 'https://developers.cloudflare.com/durable-objects/platform/limits/';
const D1 = 'https://developers.cloudflare.com/d1/platform/limits/';
const KV = 'https://developers.cloudflare.com/kv/platform/limits/';
const QUEUES = 'https://developers.cloudflare.com/queues/platform/limits/';

export const PLATFORM_LIMITS = {
  subrequestsFree: {
    value: 50,
    unit: 'calls',
    what: 'subrequests one invocation may make on Workers Free',
    source: WORKERS,
  },
  subrequestsPaid: {
    value: 10_000,
    unit: 'calls',
    what: 'subrequests one invocation may make on Workers Paid (earlier versions of the page: 1,000)',
    source: WORKERS,
  },
  kvOperationsPerInvocation: {
    value: 1000,
    unit: 'calls',
    what: 'operations on external services (KV, R2, …) one invocation may make, on either plan',
    source: KV,
  },
  d1QueriesPerInvocation: {
    value: 1000,
    unit: 'calls',
    what: 'D1 queries one invocation may make on Workers Paid (50 on Free)',
    source: D1,
  },
  memory: { value: 128 * 1000 * 1000, unit: 'bytes', what: 'memory of one isolate', source: WORKERS },
  objectCpuPerRequest: {
    value: 30_000,
    unit: 'ms',
    what: 'CPU one request or alarm of a Durable Object may use by default (configurable to 5 min)',
    source: DURABLE_OBJECTS,
  },
  sqlBoundParameters: {
    value: 100,
    unit: 'parameters',
    what: 'bound parameters of one SQL statement, in a Durable Object and in D1',
    source: DURABLE_OBJECTS,
  },
  sqlStatementLength: {
    value: 100_000,
    unit: 'bytes',
    what: 'text of one SQL statement, in a Durable Object and in D1',
    source: D1,
  },
  sqlRowSize: {
    value: 2_000_000,
    unit: 'bytes',
    what: 'one string, BLOB or row, in a Durable Object and in D1',
    source: D1,
  },
  webSocketReceived: {
    value: 32 * 1024 * 1024,
    unit: 'bytes',
    what: 'one WebSocket message a Durable Object receives',
    source: DURABLE_OBJECTS,
  },
  kvKey: { value: 512, unit: 'bytes', what: 'one KV key', source: KV },
  kvMetadata: { value: 1024, unit: 'bytes', what: "one KV key's metadata", source: KV },
  kvValue: { value: 25 * 1024 * 1024, unit: 'bytes', what: 'one KV value', source: KV },
  queueMessage: {
    value: 128_000,
    unit: 'bytes',
    what: 'one queue message, with ~100 bytes of internal metadata',
    source: QUEUES,
  },
  queueSendBatchMessages: {
    value: 100,
    unit: 'messages',
    what: 'messages one sendBatch call takes',
    source: QUEUES,
  },
  queueSendBatchBytes: { value: 256_000, unit: 'bytes', what: 'one sendBatch call in all', source: QUEUES },
  queueConsumerBatch: {
    value: 100,
    unit: 'messages',
    what: 'messages one consumer invocation is handed (max_batch_size)',
    source: QUEUES,
  },
} as const satisfies Record<string, PlatformLimit>;
