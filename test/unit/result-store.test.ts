import { MemoryResultStore } from '../../src/engine/state';
import { resultStoreConformance } from './result-store-conformance';

resultStoreConformance('MemoryResultStore', (body) => {
  body(new MemoryResultStore());
  return Promise.resolve();
});
