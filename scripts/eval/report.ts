/**
 * The eval's printed report: per model, the success criteria against their targets and one line
 * per goal; with several models, a comparison at the end. Plain text, fixed-width columns.
 */
import { TARGETS } from './summary';
import type { GoalResult, ModelResult, Rate } from './summary';

/**
 * The whole report.
 * @example process.stdout.write(formatReport(results, { endpoint: 'http://127.0.0.1:8787/v1' }))
 */
export function formatReport(results: readonly ModelResult[], meta: { endpoint: string }): string {
  const goals = results[0]?.summary.goals ?? 0;
  const out = [
    `edgeplan planning eval: ${plural(goals, 'goal')} × ${plural(results.length, 'model')}, endpoint ${meta.endpoint}`,
  ];
  for (const r of results) out.push('', ...modelSection(r));
  if (results.length > 1) out.push('', ...comparison(results));
  return `${out.join('\n')}\n`;
}

function modelSection(r: ModelResult): string[] {
  const s = r.summary;
  const criteria = table(
    ['criterion', 'result', 'target', 'n', 'status'],
    [
      criterion('plan validity (after repair)', s.validity, TARGETS.validity),
      criterion('plan validity (first answer)', s.validity_first, null),
      criterion('execution completion', s.completion, TARGETS.completion),
      criterion('revision effectiveness', s.revision, TARGETS.revision),
      criterion('dependency accuracy', s.dependencies, TARGETS.dependencies),
      criterion('step atomicity (proxy)', s.atomicity, TARGETS.atomicity),
      ['mean planning latency', ms(s.mean_latency_ms), '', '', ''],
      ['mean planning tokens', count(s.mean_tokens), '', '', ''],
    ],
  );
  const goals = table(
    ['goal', 'plan', 'calls', 'atomic', 'dependencies', 'run', 'revision', 'latency', 'tokens'],
    r.goals.map(goalRow),
  );
  const notes = r.goals.flatMap(goalNotes);
  const calls = r.goals.reduce((n, g) => n + g.planning.attempts, 0);
  const unanswered = r.goals.reduce((n, g) => n + g.planning.call_errors, 0);
  if (calls > 0 && unanswered === calls) {
    notes.unshift(
      `No planning call got an answer: check OPENAI_BASE_URL, OPENAI_API_KEY and the model name "${r.model}".`,
    );
  }
  return [
    `Model ${r.model}`,
    ...indent(criteria),
    '',
    ...indent(goals),
    ...(notes.length > 0 ? ['', ...indent(notes)] : []),
  ];
}

function criterion(name: string, r: Rate, target: number | null): string[] {
  const met = target === null || r.rate === null ? '' : r.rate >= target ? 'ok' : 'below target';
  return [name, pct(r.rate), target === null ? '' : `>= ${pct(target, 0)}`, `${r.hits}/${r.n}`, met];
}

function goalRow(g: GoalResult): string[] {
  const p = g.planning;
  const plan = !p.valid ? 'invalid' : p.valid_first ? 'valid' : 'repaired';
  const d = g.dependencies;
  const deps = !d
    ? '-'
    : d.accurate
      ? 'ok'
      : [
          d.missing.length > 0 ? `${d.missing.length} missing` : '',
          d.unnecessary.length > 0 ? `${d.unnecessary.length} unneeded` : '',
        ]
          .filter(Boolean)
          .join(', ');
  const rev = g.revision;
  const revision = !rev
    ? '-'
    : !rev.requested
      ? 'not triggered'
      : rev.effective
        ? `effective (${rev.failed_step})`
        : `no: ${rev.status} (${rev.failed_step})`;
  return [
    g.goal_id,
    plan,
    String(p.attempts),
    g.atomicity ? `${g.atomicity.atomic}/${g.atomicity.steps}` : '-',
    deps,
    g.execution?.status ?? '-',
    revision,
    ms(p.latency_ms),
    count(p.tokens),
  ];
}

/** Why a goal fell short, one line each. */
function goalNotes(g: GoalResult): string[] {
  const notes: string[] = [];
  if (g.planning.error) notes.push(`${g.goal_id}: ${cut(g.planning.error)}`);
  const d = g.dependencies;
  if (d && !d.accurate) {
    const edges = (es: readonly (readonly [string, string])[]) => es.map(([a, b]) => `${a}->${b}`).join(' ');
    const parts = [
      d.missing.length > 0 ? `missing ${edges(d.missing)}` : '',
      d.unnecessary.length > 0 ? `unneeded ${edges(d.unnecessary)}` : '',
    ];
    notes.push(`${g.goal_id}: dependencies ${parts.filter(Boolean).join('; ')}`);
  }
  if (g.execution && !g.execution.completed)
    notes.push(`${g.goal_id}: run ${cut(g.execution.error ?? g.execution.status)}`);
  if (g.revision?.requested && !g.revision.effective) {
    notes.push(
      `${g.goal_id}: revision ${cut(g.revision.error ?? `run ${g.revision.status}, failed step's work not redone`)}`,
    );
  }
  return notes;
}

function comparison(results: readonly ModelResult[]): string[] {
  const rows = results.map(({ summary: s }) => [
    s.model,
    pct(s.validity.rate),
    pct(s.validity_first.rate),
    pct(s.completion.rate),
    pct(s.revision.rate),
    pct(s.dependencies.rate),
    pct(s.atomicity.rate),
    ms(s.mean_latency_ms),
    count(s.mean_tokens),
  ]);
  const head = [
    'model',
    'validity',
    '1st',
    'completion',
    'revision',
    'deps',
    'atomicity',
    'latency',
    'tokens',
  ];
  return ['Comparison', ...indent(table(head, rows))];
}

/** Left-aligned columns, two spaces apart, a rule under the header. */
function table(head: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}

function indent(lines: readonly string[]): string[] {
  return lines.map((l) => (l === '' ? l : `  ${l}`));
}

function pct(rate: number | null, digits = 1): string {
  return rate === null ? '-' : `${(rate * 100).toFixed(digits)}%`;
}

function ms(value: number | null): string {
  return value === null ? '-' : `${Math.round(value)} ms`;
}

function count(value: number | null): string {
  return value === null ? '-' : String(Math.round(value));
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function cut(text: string, max = 160): string {
  const one = text.replace(/\s+/g, ' ');
  return one.length > max ? `${one.slice(0, max)}…` : one;
}
