/**
 * Finding and reading JSON in a model's free text: code fences, prose around the JSON, trailing
 * commas and comments. Pure string work, no plan knowledge — `parse.ts` decides what the JSON means.
 */

/** A JSON value read leniently, or why it could not be read. */
export type JsonRead = { ok: true; value: unknown } | { ok: false; error: string };

/**
 * Parses JSON, and when that fails tries again without comments and trailing commas — the two
 * liberties models take most. The error is strict `JSON.parse`'s, with line and column added.
 * @example readJson('{"a": 1,}') // { ok: true, value: { a: 1 } }
 */
export function readJson(text: string): JsonRead {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (err) {
    const cleaned = stripCommentsAndTrailingCommas(text);
    if (cleaned !== text) {
      try {
        return { ok: true, value: JSON.parse(cleaned) as unknown };
      } catch {
        // report the first error: it points into the text the model wrote
      }
    }
    return { ok: false, error: describeJsonError(err, text) };
  }
}

/** The contents of every ``` fenced block, in order (the language tag dropped). */
export function fencedBlocks(text: string): string[] {
  const out: string[] = [];
  const re = /```[ \t]*([A-Za-z0-9_-]*)[ \t]*\r?\n?([\s\S]*?)```/g;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const body = m[2] ?? '';
    if (body.trim() !== '') out.push(body);
  }
  // An unclosed fence (the answer was cut off, or the model forgot): take the rest.
  if (out.length === 0) {
    const open = /```[ \t]*[A-Za-z0-9_-]*[ \t]*\r?\n/.exec(text);
    if (open) out.push(text.slice(open.index + open[0].length));
  }
  return out;
}

/** A top-level `{…}` or `[…]` region of free text, found by bracket matching outside strings. */
export type JsonRegion = { text: string; start: number; complete: boolean };

/**
 * The outermost bracketed regions of `text`, left to right. An unbalanced region (an answer cut
 * off mid-JSON) is returned with `complete: false` and runs to the end of the text.
 */
export function jsonRegions(text: string, limit = 8): JsonRegion[] {
  const regions: JsonRegion[] = [];
  let i = 0;
  while (i < text.length && regions.length < limit) {
    const ch = text[i];
    if (ch !== '{' && ch !== '[') {
      i++;
      continue;
    }
    const end = matchBracket(text, i);
    if (end === -1) {
      regions.push({ text: text.slice(i), start: i, complete: false });
      break;
    }
    regions.push({ text: text.slice(i, end + 1), start: i, complete: true });
    i = end + 1;
  }
  return regions;
}

/** Index of the bracket closing the one at `start`, or -1. Strings and escapes are skipped. */
function matchBracket(text: string, start: number): number {
  const stack: string[] = [];
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '{') stack.push('}');
    else if (ch === '[') stack.push(']');
    else if (ch === '}' || ch === ']') {
      if (stack.pop() !== ch) return -1;
      if (stack.length === 0) return i;
    }
  }
  return -1;
}

/**
 * Removes `// …` and `/* … *\/` comments, then commas directly before `}` or `]`, leaving strings
 * untouched. Two passes, so a comment between a comma and its bracket does not hide the comma.
 */
export function stripCommentsAndTrailingCommas(text: string): string {
  return dropTrailingCommas(dropComments(text));
}

/** Copies `text`, letting `visit` decide what to do outside strings; returns how far it consumed. */
function outsideStrings(text: string, visit: (i: number, emit: (s: string) => void) => number): string {
  let out = '';
  const emit = (s: string) => {
    out += s;
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '"') {
      const end = stringEnd(text, i);
      out += text.slice(i, end + 1);
      i = end;
      continue;
    }
    i = visit(i, emit);
  }
  return out;
}

/** Index of the quote closing the string opened at `start` (or the last index when unclosed). */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return text.length - 1;
}

function dropComments(text: string): string {
  return outsideStrings(text, (i, emit) => {
    if (text[i] === '/' && text[i + 1] === '/') {
      const end = text.indexOf('\n', i);
      emit('\n');
      return end === -1 ? text.length : end;
    }
    if (text[i] === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      emit(' ');
      return end === -1 ? text.length : end + 1;
    }
    emit(text[i]!);
    return i;
  });
}

function dropTrailingCommas(text: string): string {
  return outsideStrings(text, (i, emit) => {
    if (text[i] === ',') {
      let j = i + 1;
      while (j < text.length && /\s/.test(text[j]!)) j++;
      if (text[j] === '}' || text[j] === ']') return i;
    }
    emit(text[i]!);
    return i;
  });
}

/** `JSON.parse`'s message with the line, column and the text around the position, when it has one. */
function describeJsonError(err: unknown, text: string): string {
  const message = err instanceof Error ? err.message : String(err);
  const pos = /position (\d+)/.exec(message)?.[1];
  if (pos === undefined) return message;
  const at = Number(pos);
  const before = text.slice(0, at);
  const line = before.split('\n').length;
  const column = at - before.lastIndexOf('\n');
  const near = text.slice(Math.max(0, at - 30), at + 30).replace(/\s+/g, ' ');
  return `${message.replace(/\s*\(line \d+ column \d+\)/, '')} (line ${line} column ${column}, near \`${near}\`)`;
}
