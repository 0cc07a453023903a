/**
 * What every command shares: the client from `--url` / `EDGEPLAN_URL` and `--token` /
 * `EDGEPLAN_TOKEN`, `--json`, colours (off without a TTY or with NO_COLOR), and output helpers.
 */
import { createClient, type EdgeplanClient } from '../client';
import { UsageError } from './exit-codes';
import { COLOR, PLAIN, type Style } from './render';
import { note } from './notes';
import { retryNotice } from './retry-notice';
import { oneLine, terminalText } from './terminal-text';
import { padEnd, textWidth } from './text-width';

/** `retry: false`: `--no-retry`. */
export type GlobalOptions = {
  url?: string;
  token?: string;
  json?: boolean;
  color?: boolean;
  retry?: boolean;
};

export type Context = {
  client: EdgeplanClient;
  url: string;
  json: boolean;
  tty: boolean;
  /** The terminal can be drawn on in place (not TERM=dumb): the live view and inline questions. */
  live: boolean;
  interactive: boolean;
  style: Style;
  /** Aborted on Ctrl-C. */
  signal: AbortSignal;
  print(text: string): void;
  printJson(value: unknown): void;
};

export const DEFAULT_URL = 'http://localhost:8787';
/** A request with no answer in this long is given up (a server that accepts but never answers). */
const REQUEST_TIMEOUT_MS = 60_000;

export function makeContext(g: GlobalOptions, signal: AbortSignal): Context {
  const url = serviceUrl(g.url ?? process.env.EDGEPLAN_URL ?? DEFAULT_URL, g.url ? '--url' : 'EDGEPLAN_URL');
  const token = headerSafeToken(
    g.token ?? process.env.EDGEPLAN_TOKEN,
    g.token ? '--token' : 'EDGEPLAN_TOKEN',
  );
  const tty = process.stdout.isTTY === true;
  // A terminal that cannot move its cursor (TERM=dumb: Emacs' shell, some CI consoles) gets the
  // plain event lines: the live view's redraws would pile up there as escape codes.
  const live = tty && process.env.TERM !== 'dumb';
  const colour = tty && g.color !== false && !process.env.NO_COLOR;
  const json = g.json === true;
  return {
    // A refusal the server says to send again is waited out (src/client/retry-policy.ts), saying so
    // on stderr; --no-retry answers it at once. Ctrl-C stops the wait.
    client: createClient({
      baseUrl: url,
      token,
      timeoutMs: REQUEST_TIMEOUT_MS,
      retry: g.retry !== false,
      signal,
      // Through the live view while it draws, so its next frame does not erase the notice.
      onRetry: (n) => note(terminalText(retryNotice(n, json))),
    }),
    url,
    json,
    tty,
    live,
    interactive: live && process.stdin.isTTY === true,
    style: colour ? COLOR : PLAIN,
    signal,
    print: (text) => void process.stdout.write(`${terminalText(text)}\n`),
    printJson: (value) => void process.stdout.write(`${terminalText(JSON.stringify(value, null, 2))}\n`),
  };
}

/** The service's base URL, checked: a malformed one is a usage error (exit 2), not "unreachable". */
function serviceUrl(url: string, from: string): string {
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    // reported below
  }
  if (parsed?.protocol !== 'http:' && parsed?.protocol !== 'https:')
    throw new UsageError(`${from} must be an http(s) URL, e.g. ${DEFAULT_URL} (got "${url}")`);
  // fetch refuses such a URL, and the message it would be reported in carries the password.
  if (parsed.username || parsed.password)
    throw new UsageError(
      `${from} must not carry a user name or password (user:…@): give the API token with --token or EDGEPLAN_TOKEN`,
    );
  // The service's URL, not its API's: `…/v1` would be asked for `…/v1/v1/runs`.
  return url.replace(/\/v1\/?$/, '');
}

/**
 * The token, checked as a header carries it: a line break inside (a pasted token, a file of two
 * lines) or a character beyond Latin-1 makes fetch throw before anything is sent — reported as the
 * server being unreachable, with the token in the message. Leading and trailing white space is
 * dropped, as the header drops it. The token itself is never echoed.
 */
function headerSafeToken(token: string | undefined, from: string): string | undefined {
  const trimmed = token?.trim();
  if (!trimmed) return token;
  // eslint-disable-next-line no-control-regex -- control characters are what is looked for
  const bad = /[\u0000-\u0008\u000a-\u001f\u007f]|[^\u0000-\u00ff]/.exec(trimmed);
  if (bad)
    throw new UsageError(
      `${from} holds ${bad[0] < ' ' || bad[0] === '\u007f' ? 'a line break or control character' : 'a character an HTTP header cannot carry'} at position ${bad.index + 1}: give the token alone, as the server's API_TOKEN holds it`,
    );
  return trimmed;
}

/**
 * Rows as aligned columns, measured in the columns a terminal draws (a CJK goal, an emoji step id) and
 * as printed: a control character in a cell is written out by terminalText before it is measured, and
 * a line break is a space (a cell is on its row).
 * @example table([['STEP', 'STATUS'], ['東京', 'completed']])
 */
export function table(rows: string[][]): string {
  const shown = rows.map((r) => r.map((cell) => terminalText(oneLine(cell))));
  const widths = shown[0]?.map((_, i) => Math.max(...shown.map((r) => textWidth(r[i] ?? '')))) ?? [];
  return shown
    .map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : padEnd(cell, widths[i]!))).join('  '))
    .join('\n');
}
