/**
 * Import formats (SPEC §2, §6): seed-004 tool-call lists, LLMCompiler plans and TEA YAML workflows
 * converted to plans. Pure — no Cloudflare imports — so they work from the library and in Node too.
 */
export { convertToolCalls, isToolCallPlan } from './tool-calls';
export { convertLlmCompiler } from './llmcompiler';
export { convertTeaYaml, type StateRead, type TeaImportResult } from './tea-yaml';
export { ACTION_STATE_DEFAULTS, MERGED_ACTIONS, RAW_PARAMETERS } from './tea-results';
export {
  prepareRunPlan,
  withSourceLines,
  type ImportFormat,
  type PreparedRun,
  type RunSource,
} from './run-request';
export type { ImportIssue, ImportResult } from './types';
