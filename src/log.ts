/**
 * The Worker's log: one JSON object per line, which Workers Logs indexes field by field, so an
 * operator can search by `event`, `run_id`, `code`… (docs/operating.md says what each event means
 * and what to do about it). Every object has `level`, `event` (a stable name per kind, from
 * {@link LOG_EVENTS}) and `message`; then whichever of `run_id`, `step_id`, `attempt`, `code` and
 * `error` (`{name, message, stack}`) apply. Credential-shaped text (`Bearer …`, `sk-…`, `token=…`) is
 * redacted from the message and the error, as stored prompts are. Platform-free: the engine takes no
 * log, and whatever would log gets this through its ports.
 */
import { redactSecrets } from './planner/redact';

/** Every event the Worker logs, with its level. A name never changes meaning once shipped. */
export const LOG_EVENTS = {
  // HTTP
  unhandled_error: 'error',
  unknown_error_code: 'error',
  run_index_row_unreadable: 'error',
  access_misconfigured: 'error',
  access_keys_unavailable: 'error',
  // Runs (the Durable Object)
  steps_not_queued: 'error',
  run_index_not_recorded: 'error',
  run_index_not_resynced: 'error',
  storage_upgraded: 'info',
  run_newer_format: 'warn',
  run_create_undone: 'warn',
  run_create_not_undone: 'error',
  decision_failed: 'error',
  queue_not_consumed: 'error',
  held_past_queue_window: 'warn',
  inline_step_not_reported: 'error',
  side_work_failed: 'error',
  child_run_not_reported: 'error',
  child_run_uncounted: 'warn',
  approval_link_unreadable: 'error',
  approval_links_unreadable: 'warn',
  approval_webhook_not_delivered: 'error',
  deletion_pending: 'error',
  run_force_deleted: 'warn',
  retention_invalid: 'error',
  child_run_limit_invalid: 'error',
  retention_sweep: 'info',
  retention_sweep_failed: 'error',
  // The steps queue and its dead letters
  consumer_run_unreachable: 'error',
  leases_not_renewed: 'error',
  input_wait_failed: 'error',
  step_not_reported: 'error',
  // The run ends by itself, but a consumer that fails a message ten times needs looking into.
  dead_letters_failed: 'error',
  dead_letters_retried: 'error',
  queue_message_unreadable: 'error',
  // Planning
  model_reliability_unavailable: 'warn',
  planning_provenance_not_stored: 'error',
  planning_attempt_unreadable: 'error',
  planning_llm_failed: 'error',
  // MCP servers
  mcp_server_config_invalid: 'error',
  mcp_server_not_listed: 'error',
  mcp_servers_ignored: 'error',
  mcp_tool_left_out: 'warn',
  mcp_listing_truncated: 'warn',
  mcp_listing_cache_unreadable: 'warn',
  mcp_listing_not_cached: 'warn',
  mcp_schema_unreadable: 'warn',
  mcp_tool_gone: 'warn',
} as const;

export type LogEvent = keyof typeof LOG_EVENTS;
export type LogLevel = (typeof LOG_EVENTS)[LogEvent];

/** What an event may carry besides its message: the run's coordinates, a code, the error. */
export type LogFields = {
  run_id?: string | undefined;
  step_id?: string | undefined;
  attempt?: number | undefined;
  /** An error code (the API's table, a tool's) or, for MCP, the config problem's. */
  code?: string | undefined;
  /** What was thrown; its `code`, when it has one, becomes `code` unless one is given. */
  error?: unknown;
  /** The MCP server concerned. */
  server?: string | undefined;
  /** How many things the event is about (messages, attempts). */
  count?: number | undefined;
  /** How large the thing the event is about is, in bytes (a listing's JSON). */
  bytes?: number | undefined;
  method?: string | undefined;
  path?: string | undefined;
};

/** One log line as written. */
export type LogEntry = Omit<LogFields, 'error'> & {
  level: LogLevel;
  event: LogEvent;
  message: string;
  error?: { name: string; message: string; stack?: string };
};

/** Longer text is cut: a log line is for finding the problem, not for holding a payload. */
const MAX_TEXT = 2000;
const MAX_STACK = 4000;

/**
 * The entry for an event (pure: what {@link log} writes).
 * @example logEntry('steps_not_queued', 'steps not queued', { run_id: 'run_1', error: err });
 */
export function logEntry(event: LogEvent, message: string, fields: LogFields = {}): LogEntry {
  const { error, ...rest } = fields;
  const entry: LogEntry = { level: LOG_EVENTS[event], event, message: clean(message, MAX_TEXT), ...rest };
  if (error !== undefined) {
    entry.error = errorOf(error);
    const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
    if (entry.code === undefined && typeof code === 'string') entry.code = code;
  }
  return entry;
}

/**
 * Writes one event as a line of JSON, at its level (`console.error`, `.warn` or `.log`, which Workers
 * Logs records as the line's level).
 * @example log('step_not_reported', `${runId}/${stepId}#${attempt} not reported`, { run_id: runId, step_id: stepId, attempt, error: err });
 */
export function log(event: LogEvent, message: string, fields?: LogFields): void {
  const entry = logEntry(event, message, fields);
  const line = JSON.stringify(entry);
  if (entry.level === 'error') console.error(line);
  else if (entry.level === 'warn') console.warn(line);
  else console.log(line);
}

function errorOf(err: unknown): NonNullable<LogEntry['error']> {
  if (err instanceof Error) {
    const out: NonNullable<LogEntry['error']> = { name: err.name, message: clean(err.message, MAX_TEXT) };
    if (err.stack) out.stack = clean(err.stack, MAX_STACK);
    return out;
  }
  let text: string;
  try {
    text = String(err);
  } catch {
    text = Object.prototype.toString.call(err);
  }
  return { name: typeof err, message: clean(text, MAX_TEXT) };
}

function clean(text: string, max: number): string {
  const redacted = redactSecrets(text);
  return redacted.length > max ? `${redacted.slice(0, max)}…` : redacted;
}
