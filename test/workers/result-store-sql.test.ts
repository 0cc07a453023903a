import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { SqlStore } from '../../src/durable/sql-store';
import { resultStoreConformance } from '../unit/result-store-conformance';

let n = 0;
resultStoreConformance('SqlStore', async (body) => {
  const stub = env.PLAN_RUN.getByName(`result-store-${Date.now()}-${++n}`);
  await runInDurableObject(stub, (_instance, state) => body(new SqlStore(state.storage.sql)));
});
