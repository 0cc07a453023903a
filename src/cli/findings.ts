/**
 * Where a validation finding is in the file it came from: `file:line`. TEA and LLMCompiler findings
 * carry their line; for a JSON plan the line is found from the finding's path (from the plan, or
 * within its step) or its step id, in the file as parsed with positions (yaml reads JSON too).
 */
import { isMap, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import type { Finding } from '../client';
import type { Context } from './context';
import { formatOf, readText } from './inputs';
import { terminalText } from './terminal-text';

type Path = (string | number)[];

/** A function from a finding to its line in `file` (undefined where it cannot tell). */
export function lineFinder(file: string, format?: string): (f: Finding) => number | undefined {
  if (formatOf(file, format) !== 'plan') return (f) => f.line;
  const lines = new LineCounter();
  const doc = parseDocument(readText(file), { lineCounter: lines, uniqueKeys: false });
  // A whole request file ({plan, config, …}) holds the plan under `plan`.
  const base: Path = isMap(doc.contents) && doc.contents.has('plan') ? ['plan'] : [];
  const steps = doc.getIn([...base, 'steps'], true);
  const indexOf = new Map<string, number>();
  if (isSeq(steps))
    steps.items.forEach((s, i) => {
      const id = isMap(s) ? s.get('id') : undefined;
      if (typeof id === 'string' && !indexOf.has(id)) indexOf.set(id, i);
    });
  const lineOf = (path: Path): number | undefined => {
    // The deepest node of the path the file has: a finding may name a key the step lacks.
    for (let n = path.length; n > base.length; n--) {
      const node = doc.getIn(path.slice(0, n), true) as Node | undefined;
      if (node?.range) return lines.linePos(node.range[0]).line;
    }
    return undefined;
  };
  return (f) => {
    if (f.line !== undefined) return f.line;
    const path = f.path ?? [];
    if (path[0] === 'steps') return lineOf([...base, ...path]);
    const i = f.step_id === undefined ? undefined : indexOf.get(f.step_id);
    if (i === undefined) return path.length > 0 ? lineOf([...base, ...path]) : undefined;
    return lineOf([...base, 'steps', i, ...(path.length > 0 ? path : ['id'])]);
  };
}

/** Each finding as `file:line: error code [step]: message`. */
export function findingLines(ctx: Context, file: string, format: string | undefined, errors: Finding[]) {
  let lineOf: (f: Finding) => number | undefined = (f) => f.line;
  try {
    lineOf = lineFinder(file, format);
  } catch {
    // A file the API read but positions cannot be found in: findings without lines.
  }
  return errors.map((f) => {
    const line = lineOf(f);
    const where = line === undefined ? file : `${file}:${line}`;
    // An imported source's message may start with its line already: said once.
    const message = line === undefined ? f.message : f.message.replace(/^line \d+: /, '');
    return `${where}: ${ctx.style.red('error')} ${f.code}${f.step_id ? ` [${f.step_id}]` : ''}: ${message}`;
  });
}

/** An invalid plan from `file` on stderr, as `validate` shows one: how many findings, each at its line. */
export function reportFindings(
  ctx: Context,
  code: string,
  file: string,
  format: string | undefined,
  errors: Finding[],
): void {
  const n = errors.length;
  process.stderr.write(`edgeplan: ${code}: ${n} finding${n === 1 ? '' : 's'} in ${file}\n`);
  for (const line of findingLines(ctx, file, format, errors))
    process.stderr.write(terminalText(`  ${line}\n`));
}
