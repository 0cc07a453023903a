/**
 * What every importer returns (SPEC §2 "accepted on import"): a plan ready for validation, or the
 * problems with the source, each with a stable code and, for text formats, the line it is on.
 */
import type { ErrorCode } from '../error-codes';
import type { PlanInput } from '../plan/model';
import type { PathSegment } from '../plan/references';

/** One problem with an imported source. `line`/`column` are 1-based, for text formats. */
export type ImportIssue = {
  code: ErrorCode;
  message: string;
  path?: PathSegment[];
  line?: number;
  column?: number;
};

/**
 * A converted plan, or why there is none. `input` is what the source says the run's input is (when
 * it says anything); `lines` maps step ids to the source line they came from, so validation findings
 * about a step can point back into the text.
 */
export type ImportResult =
  | { ok: true; plan: PlanInput; input?: unknown; lines?: Record<string, number> }
  | { ok: false; errors: ImportIssue[] };

/** A failed import with these issues. */
export function importFailed(errors: ImportIssue[]): { ok: false; errors: ImportIssue[] } {
  return { ok: false, errors };
}

/** An issue at a 1-based line (and column), with the position leading the message. */
export function issueAt(code: ErrorCode, line: number, message: string, column?: number): ImportIssue {
  const issue: ImportIssue = { code, message: `line ${line}: ${message}`, line };
  if (column !== undefined) issue.column = column;
  return issue;
}
