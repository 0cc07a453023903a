/**
 * The canned answers of the eval tools (`tools.ts`): a few documentation search hits, city weather
 * and exchange rates. Fixed, so every run of the suite sees the same world.
 */

export const SEARCH_INDEX: Record<string, { title: string; url: string; snippet: string }[]> = {
  'durable objects': [
    {
      title: 'Durable Objects overview',
      url: 'https://docs.example/durable-objects',
      snippet: 'Stateful serverless objects with strongly consistent storage.',
    },
    {
      title: 'Durable Objects alarms',
      url: 'https://docs.example/durable-objects/alarms',
      snippet: 'Schedule work for an object at a point in time.',
    },
  ],
  'workers kv': [
    {
      title: 'Workers KV',
      url: 'https://docs.example/kv',
      snippet: 'A global, low-latency key-value store.',
    },
  ],
  'd1 database': [
    {
      title: 'D1: serverless SQL',
      url: 'https://docs.example/d1',
      snippet: 'SQLite semantics, replicated at the edge.',
    },
  ],
  'cloudflare queues': [
    {
      title: 'Queues: guaranteed delivery',
      url: 'https://docs.example/queues',
      snippet: 'Send and receive messages with at-least-once delivery.',
    },
  ],
};

export const WEATHER: Record<string, { temp_c: number; condition: string }> = {
  paris: { temp_c: 18, condition: 'cloudy' },
  tokyo: { temp_c: 24, condition: 'sunny' },
  berlin: { temp_c: 15, condition: 'rain' },
  madrid: { temp_c: 27, condition: 'sunny' },
  oslo: { temp_c: 9, condition: 'windy' },
};

export const RATES: Record<string, number> = {
  'USD:EUR': 0.92,
  'EUR:USD': 1.087,
  'GBP:USD': 1.27,
  'USD:GBP': 0.79,
  'USD:JPY': 151.2,
};
