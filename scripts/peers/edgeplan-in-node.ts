/**
 * What scripts/bench-peers.mjs runs of edgeplan in its own process, bundled by it into .bench/: the
 * library's LocalRunner — the same engine as the run object, events and outputs in memory, nothing
 * durable — with the demo tools the service runs (LangGraph.js's like for like), and the client a
 * user follows a run with (`watch`, over the run's WebSocket).
 */
export { LocalRunner } from '../../src/library/local-runner';
export { demoEcho, demoSleep } from '../../src/executor/tools/demo';
export { createClient } from '../../src/client';
