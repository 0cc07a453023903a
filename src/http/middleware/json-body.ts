/**
 * Every request body is JSON (SPEC §6). This checks the content type, the nesting depth and parses
 * the body once, before any route, so a bad body gets a precise error — `415` naming the content type
 * received, `400 invalid_request` for a body nested deeper than {@link MAX_NESTING_DEPTH} (before
 * anything recursive can overflow on it), or `400 invalid_json` saying where parsing failed (or
 * where a string holds a lone surrogate, which no UTF-8 can carry) —
 * instead of the validator's generic one; a body whose upload broke off is `400 invalid_request`.
 * `c.req.json()` then returns that parse (see below), so the body is neither read nor parsed again.
 */
import type { MiddlewareHandler } from 'hono';
import { jsonNestingDepth, MAX_NESTING_DEPTH } from '../../nesting';
import { decodeUtf8 } from '../../utf8';
import { loneSurrogatePath } from '../lone-surrogates';
import { jsonError } from '../errors';
import { unreadableBody } from './unreadable-body';

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** `application/json` and `application/<x>+json`, parameters (charset) ignored — as Hono's validator. */
const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i;

/** Whether a `Content-Type` header value names JSON. */
export function isJsonContentType(contentType: string): boolean {
  const mediaType = contentType.split(';')[0]?.trim() ?? '';
  return JSON_MEDIA_TYPE.test(mediaType);
}

/**
 * Rejects non-empty bodies that are not JSON, nest too deep or do not parse; an empty body is treated
 * as none.
 * @example app.use('*', jsonBody())
 */
export function jsonBody(): MiddlewareHandler {
  return async function jsonBody(c, next) {
    if (!METHODS_WITH_BODY.has(c.req.method)) return next();
    let bytes: Uint8Array;
    try {
      bytes = c.req.raw.body === null ? new Uint8Array() : new Uint8Array(await c.req.arrayBuffer());
    } catch (err) {
      return unreadableBody(c, err);
    }
    const decoded = decodeUtf8(bytes);
    const text = decoded.ok ? decoded.text : '';
    if (decoded.ok && text.trim() === '') {
      // An empty (or blank) body is no body, whatever Content-Type the client habitually sends: a
      // body-less route (cancel) then just works, and a route that needs one says what to send.
      const headers = new Headers(c.req.raw.headers);
      headers.delete('Content-Type');
      headers.delete('Content-Length');
      c.req.raw = new Request(c.req.raw, { body: null, headers });
      return next();
    }

    // Bodies are read as they arrive: a compressed one would reach the parser as binary.
    const encoding = c.req.header('Content-Encoding')?.trim().toLowerCase();
    if (encoding && encoding !== 'identity') {
      return jsonError(
        c,
        'unsupported_media_type',
        `Request bodies are not decoded: send this one uncompressed, without "Content-Encoding: ${encoding}"`,
        { content_encoding: encoding },
      );
    }
    const contentType = c.req.header('Content-Type');
    if (!contentType || !isJsonContentType(contentType)) {
      const got = contentType ? `got "${contentType}"` : 'no Content-Type was sent';
      return jsonError(
        c,
        'unsupported_media_type',
        `Request body must be JSON: send "Content-Type: application/json" (${got})`,
      );
    }
    // JSON between systems is UTF-8 (RFC 8259 §8.1). A body in another encoding would be read as UTF-8
    // and its non-ASCII characters silently replaced: refused, as is a body that is not valid UTF-8.
    const charset = charsetOf(contentType);
    if (charset !== null && !UTF8_NAMES.has(charset)) {
      return jsonError(
        c,
        'unsupported_media_type',
        `Request bodies are read as UTF-8, JSON's encoding: send this one as UTF-8, with "charset=utf-8" or no charset (got "charset=${charset}")`,
        { charset },
      );
    }
    if (!decoded.ok) {
      return jsonError(
        c,
        'invalid_json',
        `Request body is not valid UTF-8 (byte ${decoded.position} cannot start or continue a character): send it encoded as UTF-8`,
        { position: decoded.position },
      );
    }
    const depth = jsonNestingDepth(text);
    if (depth > MAX_NESTING_DEPTH) {
      return jsonError(
        c,
        'invalid_request',
        `Request body nests arrays and objects ${depth} levels deep; the limit is ${MAX_NESTING_DEPTH}`,
        { depth, max_depth: MAX_NESTING_DEPTH },
      );
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      return jsonError(c, 'invalid_json', `Request body is not valid JSON: ${reason}`, parseLocation(reason));
    }
    const lone = loneSurrogatePath(text, parsed);
    if (lone !== null) {
      return jsonError(
        c,
        'invalid_json',
        `Request body holds a lone UTF-16 surrogate (a \\uD800–\\uDFFF escape without its pair) at ${lone}: no UTF-8 text can carry it; send the character it stands for, or both halves of its surrogate pair`,
        { path: lone },
      );
    }
    // The route's validator and the route read the body with `c.req.json()`, which parses the text
    // again each call (Hono caches the text only): they get this parse instead — a large plan's body
    // parsed once, not three times. Readers must not change it.
    Object.defineProperty(c.req, 'json', { value: () => Promise.resolve(parsed), configurable: true });
    return next();
  };
}

/** The charset names UTF-8 goes by (the WHATWG Encoding Standard's labels for it). */
const UTF8_NAMES = new Set([
  'utf-8',
  'utf8',
  'unicode-1-1-utf-8',
  'unicode11utf8',
  'unicode20utf8',
  'x-unicode20utf8',
]);

/** The `charset` parameter of a Content-Type value, lower-cased and unquoted; null when there is none. */
function charsetOf(contentType: string): string | null {
  for (const param of contentType.split(';').slice(1)) {
    const eq = param.indexOf('=');
    if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    return param
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
  }
  return null;
}

/** V8 says `… at position 12 (line 2 column 5)`; surfaced as data when present. */
function parseLocation(reason: string): { position: number; line?: number; column?: number } | undefined {
  const pos = /at position (\d+)/.exec(reason);
  if (!pos?.[1]) return undefined;
  const lc = /\(line (\d+) column (\d+)\)/.exec(reason);
  return lc?.[1] && lc[2]
    ? { position: Number(pos[1]), line: Number(lc[1]), column: Number(lc[2]) }
    : { position: Number(pos[1]) };
}
