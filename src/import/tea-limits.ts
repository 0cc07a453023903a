/**
 * The bounds on a TEA workflow's text, and what is refused from its tokens alone before it is parsed
 * (yaml-scan.ts): nesting too deep for the parser, too many aliases, more nodes than steps allowed.
 */
import { MAX_NESTING_DEPTH } from '../nesting';
import { MAX_PLAN_STEPS } from '../plan/config';
import { LineIndex } from './line-index';
import { importFailed, issueAt } from './types';
import type { ImportResult } from './types';
import type { YamlScan } from './yaml-scan';

/** A workflow refused; `tooManySteps` when its one issue is the `too_many_steps` finding. */
export type TeaRefusal = Extract<ImportResult, { ok: false }> & { tooManySteps?: true };

/**
 * The most aliases (`*name`) a workflow may have. The yaml library resolves each by a scan whose
 * length grows with the document, so their cost grows with their square (20,000 took minutes); and as
 * `toJS` refuses an anchor used more than 100 times, a real workflow has far fewer.
 */
export const MAX_ALIASES = 1000;

/**
 * The largest TEA workflow the API reads: 1 MiB of YAML (UTF-8). A workflow with `goto:`,
 * `navigation:` or `edges:` cannot have its nodes counted before it is parsed, so without this only
 * the 5 MiB request body bounded the work: reading and converting takes about a second of CPU a MiB
 * (POST /v1/plans/validate under `wrangler dev`: 4.9 MiB took 5–7 s, 1 MiB 1–2 s), and real
 * workflows are a few KiB. Checked by the API (import/run-request.ts), not by `convertTeaYaml`.
 */
export const MAX_TEA_SOURCE_BYTES = 1024 * 1024;

/**
 * The most a workflow may come to with its aliases written out: 5 MiB, what one API request body
 * carries (src/http/middleware/body-limit.ts).
 */
export const MAX_EXPANDED_CHARS = 5 * 1024 * 1024;

/**
 * What is refused from the text's tokens alone, before the workflow is parsed: nesting that would
 * overflow the parser's stack, aliases whose look-ups would take minutes, and more nodes than
 * `maxSteps` when each is sure to be a step.
 */
export function refuseUnparsed(
  source: string,
  scan: YamlScan,
  maxSteps: number | undefined,
): TeaRefusal | null {
  const where = (offset: number) => new LineIndex(source).at(offset);
  if (scan.tooDeep) {
    const at = where(scan.tooDeep.offset);
    const message = `sequences and mappings nest more than ${MAX_NESTING_DEPTH} levels deep here; the limit is ${MAX_NESTING_DEPTH}`;
    return importFailed([issueAt('too_deep', at.line, message, at.column)]);
  }
  if (scan.aliases.pastLimit !== null) {
    const at = where(scan.aliases.pastLimit);
    const message = `the workflow has ${scan.aliases.count} aliases (*name); the limit is ${MAX_ALIASES}: write the repeated values out, or keep them once in variables: and use {{ variables.name }}`;
    return importFailed([issueAt('yaml_syntax', at.line, message, at.column)]);
  }
  // Without navigation every node is a step, so a workflow far past max_steps (more than twice as
  // many nodes, or past the largest max_steps) is refused here: parsing and converting it cost far
  // more than this count (seconds at 10,000 nodes). One a little past it is read, so the refusal
  // comes with the workflow's other findings. With navigation a node may be unreached, and not a
  // step: validation counts those steps.
  const nodes = scan.rootSequences.get('nodes');
  if (maxSteps === undefined || !nodes || scan.words.size > 0) return null;
  if (nodes.entries <= Math.min(2 * maxSteps, MAX_PLAN_STEPS)) return null;
  const { line, column } = where(nodes.offset);
  const message = tooManyNodes(nodes.entries, maxSteps);
  return { ok: false, errors: [{ code: 'too_many_steps', message, line, column }], tooManySteps: true };
}

/** Why a workflow of `nodes` nodes, each a step, does not fit `maxSteps`, and what to do. */
function tooManyNodes(nodes: number, maxSteps: number): string {
  const raise =
    maxSteps < MAX_PLAN_STEPS
      ? `raise config.max_steps (up to ${MAX_PLAN_STEPS}) or split the workflow`
      : 'split the workflow';
  return `The workflow has ${nodes} nodes, each a step; the limit (max_steps) is ${maxSteps}: ${raise}`;
}
