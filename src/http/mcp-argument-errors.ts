/**
 * A route's validation refusal as an MCP tool's caller reads it: the tool's arguments become the
 * route's query, path parameters or body, so `Invalid query parameters: limit: …` names a field the
 * caller gave as an argument — said as `Invalid arguments: limit: …`. Only the message changes; the
 * envelope, its code and `details` stay the route's.
 * @example argumentsWording({ error: { code: 'invalid_request', message: 'Invalid query parameters: limit: must be at most 500', details: { target: 'query' } } }).error.message // 'Invalid arguments: limit: must be at most 500'
 */
const ROUTE_WORDS = /^Invalid (query parameters|path parameters|request body):/;

type Envelope = { error?: { code?: unknown; message?: unknown; details?: unknown } };

export function argumentsWording<T extends Record<string, unknown>>(json: T): T {
  const error = (json as Envelope).error;
  if (error?.code !== 'invalid_request' || typeof error.message !== 'string') return json;
  if (!ROUTE_WORDS.test(error.message)) return json;
  return { ...json, error: { ...error, message: error.message.replace(ROUTE_WORDS, 'Invalid arguments:') } };
}
