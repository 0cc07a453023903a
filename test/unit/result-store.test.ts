import { MemoryResultStore } from '../../src/engine/state';
import { resultStoreConformance } from './result-store-conformance';

resultStoreConformance('MemoryResultStore', async (body) => body(new MemoryResultStore()));
