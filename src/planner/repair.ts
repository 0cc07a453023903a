/**
 * The repair prompt (SPEC §3, STYLE §8): the model's own answer followed by exactly what was wrong
 * with it — the parse error, or each validation finding with its code — and the instruction to
 * answer again. Bounded: the quoted answer and the list of findings are cut.
 */
import type { Finding } from '../plan/findings';
import type { ChatMessage } from './chat';
import { clipText } from '../text-cut';

const MAX_QUOTED_ANSWER = 8_000;
const MAX_FINDINGS = 30;

/** What was wrong with an answer. */
export type Problem = { kind: 'parse'; error: string } | { kind: 'invalid'; findings: readonly Finding[] };

/**
 * The conversation for a repair: the original messages, the model's answer, and a user message
 * quoting the problem. Always built from the first prompt, so repairs do not pile up.
 * @example repairMessages(first, raw, { kind: 'invalid', findings: [{ code: 'cycle', message: 'Cycle detected: a -> b -> a' }] })
 */
export function repairMessages(
  first: readonly ChatMessage[],
  answer: string,
  problem: Problem,
): ChatMessage[] {
  const quoted = clipText(answer, MAX_QUOTED_ANSWER);
  return [
    ...first,
    { role: 'assistant', content: quoted || '(empty answer)' },
    { role: 'user', content: describeProblem(problem) },
  ];
}

/** The repair instruction for a problem. */
export function describeProblem(problem: Problem): string {
  const lines = ['Your previous answer could not be used.'];
  if (problem.kind === 'parse') {
    lines.push(`It could not be read as a plan: ${problem.error}`);
  } else {
    lines.push('The plan has these problems (code: message):');
    for (const f of problem.findings.slice(0, MAX_FINDINGS)) lines.push(`- ${f.code}: ${f.message}`);
    const more = problem.findings.length - MAX_FINDINGS;
    if (more > 0) lines.push(`- … and ${more} more`);
  }
  lines.push(
    'Fix every problem and return the complete corrected plan: exactly one JSON object with a "steps" array, and nothing else.',
  );
  return lines.join('\n');
}

/** The findings in one line, for the trace. */
export function summarizeFindings(findings: readonly Finding[]): string {
  const shown = findings.slice(0, 5).map((f) => `${f.code}: ${f.message}`);
  const more = findings.length - shown.length;
  return shown.join('; ') + (more > 0 ? ` (and ${more} more)` : '');
}
