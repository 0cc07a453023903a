/**
 * edgeplan in process for scripts/bench-peers.mjs: the library's LocalRunner — the same engine as the
 * run object, events and outputs in memory, nothing durable — with the demo tools the service runs.
 * LangGraph.js's like for like. Bundled by the bench into .bench/.
 */
export { LocalRunner } from '../../src/library/local-runner';
export { demoEcho, demoSleep } from '../../src/executor/tools/demo';
