/**
 * Requests for the schema-driven fuzz (fast-check): every operation of the OpenAPI document
 * (src/client/openapi.json) plus the routes it does not describe (`/mcp` JSON-RPC, `/app`), unknown
 * routes and wrong methods — each with its path, query and body generated from the operation's
 * schemas and then mutated: bad ids in paths, hostile query strings, wrong or missing Content-Type,
 * truncated or non-UTF-8 bodies, duplicate keys, odd Authorization headers.
 */
import fc from 'fast-check';
import openapi from '../../src/client/openapi.json';
import { MCP_API_TOOLS } from '../../src/http/mcp-tools';
import { schemaArbitrary, type JsonSchema, type SchemaContext } from './json-schema-arbitrary';
import { deepSource, hostileValue, jsonText, mutated, ODD_STRINGS } from './hostile-json';

/** A request, as data: what a failure prints and a test replays. */
export type FuzzRequest = {
  /** `GET /v1/runs/{id}` — the operation it was generated for. */
  operation: string;
  method: string;
  /** Path and query, already encoded (may hold broken percent-escapes on purpose). */
  target: string;
  headers: Record<string, string>;
  body?: string | Uint8Array<ArrayBuffer>;
};

type Parameter = { name: string; in: 'path' | 'query'; required?: boolean; schema: JsonSchema };
type Operation = {
  method: string;
  path: string;
  parameters: Parameter[];
  body?: { schema: JsonSchema; required: boolean };
};

type Doc = {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: Parameter[];
        requestBody?: { required?: boolean; content: Record<string, { schema: JsonSchema }> };
      }
    >
  >;
  components: { schemas: Record<string, JsonSchema> };
};
const doc = openapi as unknown as Doc;

/** Words generated strings draw from: tool names, step ids, decisions. */
const WORDS = [
  'demo.echo',
  'demo.sleep',
  'a',
  'b',
  'c',
  'approve',
  'modify',
  'reject',
  'x',
  'hello',
  'http.request',
];

export const schemaContext: SchemaContext = { schemas: doc.components.schemas, words: WORDS };

const STEPS = [
  { id: 'a', action: 'demo.echo', parameters: { text: 'hi' } },
  { id: 'b', action: 'demo.echo', parameters: { text: '{{ steps.a.output }}' }, dependencies: ['a'] },
];
const PLAN = { goal: 'fuzz', steps: STEPS };
/** A config that sets most fields, so that mutating one reaches the code reading it. */
const FULL_CONFIG = {
  execution_mode: 'parallel',
  max_parallel: 2,
  step_timeout: 5,
  retry_failed_steps: 1,
  retry_delay: 0.1,
  max_revisions: 1,
  revision_threshold: 0.5,
  require_plan_approval: false,
  approval: { timeout_s: 60, default_action: 'reject' },
  token_budget: 1000,
  mode: 'lazy',
  max_steps: 20,
  max_depth: 3,
  stages: [{ name: 's', prompt: 'p', tools: ['demo.echo'], max_tokens: 10 }],
};

/**
 * Bodies the schemas cannot say are whole (one of plan, goal or format; a step's dependencies that
 * name its siblings), mutated like the generated ones so the fuzz reaches past the first checks.
 */
export const SEED_BODIES: Record<string, readonly unknown[]> = {
  'POST /v1/runs': [
    { plan: PLAN, input: { x: 1 } },
    { plan: PLAN, config: { require_plan_approval: true, execution_mode: 'parallel', max_parallel: 2 } },
    { plan: [{ _tool: 'demo.echo', text: '†input.x', _outputPath: '†state.y' }], input: { x: 1 } },
    {
      format: 'tea-yaml',
      source: 'nodes:\n  - name: a\n    uses: demo.echo\n    with: { text: "{{ state.x }}" }\n',
      input: { x: 1 },
    },
    { format: 'llmcompiler', source: '1. demo.echo(text="hi")\n2. demo.echo(text=$1)\n3. join()' },
    { plan: PLAN, config: { mode: 'lazy' } },
    { plan: PLAN, config: FULL_CONFIG, input: { x: 1 } },
    { plan: PLAN, config: { require_plan_approval: true, approval: { timeout_s: 60 } } },
    // A goal: planned by the model the deployment has (none here: the planning fails, below 500).
    { goal: 'fetch https://example.com then echo done', config: { mode: 'lazy' } },
    // Sources nested past the parsers' limits, and a YAML alias bomb.
    ...[0, 1].map((kind) => ({ format: 'llmcompiler', source: deepSource(10_000, kind) })),
    ...[2, 3, 4].map((kind) => ({ format: 'tea-yaml', source: deepSource(10_000, kind) })),
  ],
  'POST /v1/plans/validate': [
    { plan: PLAN },
    { plan: PLAN, config: { max_steps: 1, require_dependencies: true } },
  ],
  'POST /v1/plans': [
    { goal: 'echo hello', max_steps: 5 },
    { goal: 'echo hello', strategy: 'flat', max_steps: 5, max_depth: 2, tools: ['demo.echo'] },
  ],
  'POST /v1/runs/{id}/approval': [
    { decision: 'approve', comment: 'ok' },
    { decision: 'reject' },
    { decision: 'modify', plan: PLAN },
    {
      decision: 'modify',
      edits: [{ op: 'update_step', step_id: 'b', changes: { parameters: { text: 'x' } } }],
    },
    {
      decision: 'modify',
      edits: [{ op: 'add_step', step: { id: 'c', action: 'demo.echo', dependencies: ['b'] }, after: 'b' }],
    },
    {
      decision: 'modify',
      edits: [
        { op: 'remove_step', step_id: 'b' },
        { op: 'move_step', step_id: 'a', to_index: 0 },
      ],
    },
    { decision: 'modify', edits: [{ op: 'move_step', step_id: 'a', to_index: 1 }] },
    { decision: 'modify', edits: [{ op: 'set_dependencies', step_id: 'b', dependencies: [] }] },
  ],
  'POST /v1/runs/{id}/cancel': [{ reason: 'stop' }, {}],
  'POST /v1/runs/{id}/retry': [{}, { step_id: 'a' }],
  'POST /v1/runs/{id}/input': [{ input: { answer: 'yes' } }],
  'POST /v1/runs/{id}/replan': [{ reason: 'because' }],
  'POST /v1/runs/{id}/rollback': [{ version: 1 }],
};

/** A valid-looking body for an operation: from its schema, or one of its {@link SEED_BODIES}. */
export function validBody(method: string, path: string, schema: JsonSchema): fc.Arbitrary<unknown> {
  const seeds = SEED_BODIES[`${method} ${path}`];
  const generated = schemaArbitrary(schemaContext, schema);
  return seeds ? fc.oneof(generated, fc.constantFrom(...seeds)) : generated;
}

/** The document's operations. */
export const OPERATIONS: readonly Operation[] = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, op]) => ({
    method: method.toUpperCase(),
    path,
    parameters: op.parameters ?? [],
    ...(op.requestBody
      ? {
          body: {
            schema: op.requestBody.content['application/json']!.schema,
            required: op.requestBody.required ?? false,
          },
        }
      : {}),
  })),
);

/** The schema of an operation's body. */
export function bodySchema(method: string, path: string): JsonSchema {
  const op = OPERATIONS.find((o) => o.method === method.toUpperCase() && o.path === path);
  if (!op?.body) throw new Error(`No body for ${method} ${path}`);
  return op.body.schema;
}

/** Ids that cannot be runs: too long, slashes, dots, percent-encoding, unicode, control characters. */
export const BOGUS_IDS = [
  'run_0000000000000000',
  'run_',
  'run_' + 'a'.repeat(65),
  'r'.repeat(5000),
  'not-a-run',
  'RUN_ABC',
  '%2E%2E',
  '..',
  'run_abc%2Fplans',
  'a/b',
  '%00',
  '%ED%A0%80',
  '%FF',
  '%',
  '%zz',
  'run_%F0%9F%99%82',
  '%F0%9F%99%82',
  'run_%00',
  '%E2%80%AE',
  '__proto__',
  'constructor',
  '%20',
  'run_x%3Fa%3Db',
  'run_x%23frag',
];

/** Approval-link tokens (`?token=`) that are not one: empty, the bare prefix, too long, the right length. */
const BOGUS_TOKENS = ['', 'apv_', 'apv_bogus', 'x'.repeat(300), '\u0000', 'apv_' + 'A'.repeat(43), '🙂'];

/** Path segments for a plan version: numbers, not numbers, out of range. */
const VERSIONS = [
  '0',
  '1',
  '2',
  '-1',
  '-0',
  '1.5',
  '1e3',
  '1e999',
  'NaN',
  'x',
  '99999999999999999999',
  '%31',
  '0x1',
  ' 1',
];

/** Query values: out of range, not numbers, broken escapes, non-UTF-8 bytes. */
const QUERY_VALUES = [
  '',
  '-1',
  '-0',
  '0',
  '1',
  '1.5',
  '1e308',
  '1e999',
  'NaN',
  'Infinity',
  '99999999999999999999',
  'true',
  'yes',
  'x',
  '%00',
  '%',
  '%zz',
  '%ED%A0%80',
  '%FF',
  '%F0%9F%99%82',
  '+',
  '%2B',
  '+%2B+',
  'a'.repeat(3000),
  '__proto__',
];

/** The API token a test may set (API_TOKEN) so that some requests carry it. */
export const FUZZ_TOKEN = 'fuzz-token';

/** Authorization headers: none, the token, a wrong one, wrong scheme, no token, huge, odd spacing. */
export const AUTH_HEADERS = [
  undefined,
  `Bearer ${FUZZ_TOKEN}`,
  `bearer   ${FUZZ_TOKEN}  `,
  'Bearer wrong',
  'Bearer',
  'Bearer ',
  'bearer   x  ',
  'Basic dXNlcjpwYXNz',
  'Bearer a b',
  `Bearer ${FUZZ_TOKEN} extra`,
  'Token x',
  'x'.repeat(10_000),
  'Bearer ' + 'x'.repeat(10_000),
  'Bearer \u00ff',
];

/** Content types: JSON in other spellings, not JSON, another charset, none. */
const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=UTF-8',
  'APPLICATION/JSON',
  'application/merge-patch+json',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/json;;;',
  'application/vnd.edgeplan+json',
  'application/jsonp',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'json',
  '',
  undefined,
];

const methodsWithBody = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Percent-encoding that cannot fail: a lone surrogate becomes bytes that are not UTF-8. */
export function encode(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return '%ED%A0%80';
  }
}

/** A path parameter's value: one of `ids` (runs that exist) or a bogus one, or a value of its schema. */
function pathValue(param: Parameter, ids: fc.Arbitrary<string>): fc.Arbitrary<string> {
  if (param.name === 'id')
    return fc.oneof(
      { weight: 3, arbitrary: ids.map(encode) },
      { weight: 2, arbitrary: fc.constantFrom(...BOGUS_IDS) },
    );
  return fc.oneof(
    schemaArbitrary(schemaContext, param.schema).map((v) => encode(String(v))),
    fc.constantFrom(...VERSIONS),
  );
}

/** A query string: each parameter left out, of its schema, or hostile; an unknown one; a repeat. */
function queryString(params: Parameter[]): fc.Arbitrary<string> {
  const one = (p: Parameter) =>
    // A wait's length is always given, and short or refused: one left to its default (25 s) on a run
    // that waits for a person would be answered after HANG_MS, as the wait it is, not a hang.
    p.name === 'timeout_s'
      ? fc.constantFrom(
          'timeout_s=1',
          'timeout_s=0',
          'timeout_s=51',
          'timeout_s=1.5',
          'timeout_s=1&timeout_s=2',
        )
      : fc.oneof(
          { weight: 2, arbitrary: fc.constant<string | null>(null) },
          {
            weight: 2,
            arbitrary: schemaArbitrary(schemaContext, p.schema).map((v) => `${p.name}=${encode(String(v))}`),
          },
          { weight: 2, arbitrary: fc.constantFrom(...QUERY_VALUES).map((v) => `${p.name}=${v}`) },
          { weight: 1, arbitrary: fc.constantFrom(...ODD_STRINGS).map((v) => `${p.name}=${encode(v)}`) },
          {
            weight: 1,
            arbitrary: fc.string({ unit: 'binary', maxLength: 20 }).map((v) => `${p.name}=${encode(v)}`),
          },
          {
            weight: 1,
            arbitrary: fc.constantFrom(`${p.name}=1&${p.name}=2`, p.name, `${p.name}[]=1`, `${p.name}[a]=1`),
          },
        );
  return fc
    .tuple(
      fc.tuple(...params.map(one)),
      fc.option(
        fc.oneof(
          {
            weight: 6,
            arbitrary: fc.constantFrom(
              'unknown=1',
              '__proto__=x',
              'constructor[prototype]=1',
              '=',
              '&&',
              'a=%',
              'token=apv_bogus',
            ),
          },
          { weight: 1, arbitrary: fc.constantFrom(...BOGUS_TOKENS.map((t) => `token=${encode(t)}`)) },
        ),
        { freq: 5 },
      ),
    )
    .map(([parts, extra]) => {
      const all = [...parts, extra].filter((p): p is string => p !== null);
      return all.length ? `?${all.join('&')}` : '';
    });
}

/** Body bytes: JSON of a mutated valid value mostly; else truncated, blank, not UTF-8, not JSON. */
export function bodyText(
  valid: fc.Arbitrary<unknown>,
): fc.Arbitrary<string | Uint8Array<ArrayBuffer> | undefined> {
  const json = mutated(valid).map(jsonText);
  return fc.oneof(
    { weight: 12, arbitrary: json },
    // Truncated.
    { weight: 2, arbitrary: fc.tuple(json, fc.nat()).map(([t, n]) => t.slice(0, n % Math.max(t.length, 1))) },
    // Not JSON at all, or JSON's near misses.
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '{',
        '}',
        '[1,]',
        '{"a":1,}',
        'nul',
        "{'a': 1}",
        '\ufeff{}',
        '"unterminated',
        '{"a":1}{"b":2}',
        'NaN',
        '01',
        '{"a":01}',
        '"\\ud800"',
        '{"\\u0000":1}',
        '/* c */ {}',
      ),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(undefined, '', ' ', '\n\t\r ', '\u00a0', 'null', '[]', '{}', '""', '0'),
    },
    // Not UTF-8: a stray continuation byte, an overlong NUL, an encoded surrogate, latin-1.
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          json,
          fc.constantFrom([0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xe9], [0xf4, 0x90, 0x80, 0x80]),
        )
        .map(([t, bad]) => {
          const bytes = new TextEncoder().encode(t);
          const at = Math.max(1, bytes.length - 2);
          return new Uint8Array([...bytes.slice(0, at), ...bad, ...bytes.slice(at)]);
        }),
    },
    {
      weight: 1,
      arbitrary: fc.oneof(
        { weight: 4, arbitrary: hostileValue.map(jsonText) },
        // Past the API's body limit: refused before it is parsed.
        { weight: 1, arbitrary: fc.constant(null).map(() => OVERSIZED_BODY) },
      ),
    },
  );
}

/** A JSON body of 5 MB, made once. */
const OVERSIZED_BODY = `{"input": "${'x'.repeat(5 * 1024 * 1024)}"}`;

/** Headers: Content-Type (for a body), Authorization, and now and then Content-Encoding or Accept. */
function headers(hasBody: boolean): fc.Arbitrary<Record<string, string>> {
  return fc
    .record({
      contentType: hasBody
        ? fc.oneof(
            { weight: 6, arbitrary: fc.constant('application/json') },
            { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
          )
        : fc.constant(undefined),
      auth: fc.oneof(
        { weight: 5, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.constantFrom(...AUTH_HEADERS) },
      ),
      extra: fc.option(
        fc.constantFrom<[string, string]>(
          ['Content-Encoding', 'gzip'],
          ['Content-Encoding', 'identity'],
          ['Accept', 'text/html'],
          ['Accept', '*/*;q=0'],
          ['Accept-Encoding', 'br'],
          ['Origin', 'https://evil.example'],
          ['X-Forwarded-For', '1.1.1.1'],
          ['Upgrade', 'websocket'],
          ['Transfer-Encoding', 'chunked'],
        ),
        { freq: 6 },
      ),
    })
    .map(({ contentType, auth, extra }) => {
      const h: Record<string, string> = {};
      if (contentType !== undefined) h['Content-Type'] = contentType;
      if (auth !== undefined) h.Authorization = auth;
      if (extra) h[extra[0]] = extra[1];
      return h;
    });
}

/** Methods the operations do not take (TRACE and CONNECT: the Request constructor refuses them). */
const WRONG_METHODS = ['PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'GET', 'POST', 'PROPFIND', 'get'];

/** A request for one operation of the document. */
function operationRequest(op: Operation, ids: fc.Arbitrary<string>): fc.Arbitrary<FuzzRequest> {
  const pathParams = op.parameters.filter((p) => p.in === 'path');
  const query = op.parameters.filter((p) => p.in === 'query');
  const valid = op.body ? validBody(op.method, op.path, op.body.schema) : fc.constant({});
  return fc
    .record({
      values: fc.tuple(...pathParams.map((p) => pathValue(p, ids))),
      query: queryString(query),
      method: fc.oneof(
        { weight: 12, arbitrary: fc.constant(op.method) },
        { weight: 1, arbitrary: fc.constantFrom(...WRONG_METHODS) },
      ),
      body: bodyText(valid),
      headers: headers(true),
      slash: fc.oneof(
        { weight: 20, arbitrary: fc.constant('') },
        { weight: 1, arbitrary: fc.constantFrom('/', '//') },
      ),
      // The WebSocket route asked as a plain GET now and then (no `Upgrade`): refused, not a socket.
      upgrade: fc.oneof(
        { weight: 3, arbitrary: fc.constant(true) },
        { weight: 1, arbitrary: fc.constant(false) },
      ),
    })
    .map(({ values, query, method, body, headers: h, slash, upgrade }) => {
      let path = op.path;
      pathParams.forEach((p, i) => (path = path.replace(`{${p.name}}`, values[i]!)));
      const sendsBody = methodsWithBody.has(method.toUpperCase()) && body !== undefined;
      if (!sendsBody) delete h['Content-Type'];
      // workerd's fetch sends any request with `Upgrade: websocket` as a GET (its body dropped).
      if (method !== 'GET') delete h.Upgrade;
      if (path.endsWith('/ws') && method === 'GET' && !('Upgrade' in h) && upgrade) h.Upgrade = 'websocket';
      return {
        operation: `${op.method} ${op.path}`,
        method,
        target: path + (path === '/' ? '' : slash) + query,
        headers: h,
        ...(sendsBody ? { body } : {}),
      };
    });
}

/** A JSON-RPC message for `/mcp`: the methods MCP has, tool calls with arguments of their route's body. */
function mcpMessage(ids: fc.Arbitrary<string>): fc.Arbitrary<unknown> {
  const toolCall = fc.constantFrom(...MCP_API_TOOLS).chain((tool) =>
    fc
      .tuple(
        tool.body
          ? validBody(
              tool.body.method.toUpperCase(),
              tool.body.path,
              bodySchema(tool.body.method, tool.body.path),
            )
          : // A wait as short as it may be (see queryString's timeout_s).
            fc.constant(tool.name === 'wait_for_run' ? { timeout_s: 1 } : {}),
        fc.option(ids, { nil: undefined }),
      )
      .map(([body, runId]) => ({
        name: tool.name,
        arguments: { ...(body as object), ...(tool.runId && runId !== undefined ? { run_id: runId } : {}) },
      })),
  );
  const id = fc.oneof(fc.integer(), fc.string({ maxLength: 5 }));
  return fc.oneof(
    fc.record({ jsonrpc: fc.constant('2.0'), id, method: fc.constant('tools/call'), params: toolCall }),
    fc.record({
      jsonrpc: fc.constant('2.0'),
      id,
      method: fc.constantFrom(
        'initialize',
        'tools/list',
        'ping',
        'resources/list',
        'prompts/get',
        'nope',
        '',
      ),
      params: fc.constantFrom(
        {},
        { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
      ),
    }),
    fc.record({
      jsonrpc: fc.constant('2.0'),
      method: fc.constantFrom('notifications/initialized', 'notifications/cancelled'),
    }),
    fc.record({ jsonrpc: fc.constant('2.0'), id, result: fc.constant({}) }),
  );
}

function mcpRequest(ids: fc.Arbitrary<string>): fc.Arbitrary<FuzzRequest> {
  const one = mcpMessage(ids);
  const message = fc.oneof(
    { weight: 4, arbitrary: one },
    { weight: 1, arbitrary: fc.array(one, { minLength: 0, maxLength: 4 }) },
  );
  return fc
    .record({
      method: fc.oneof(
        { weight: 12, arbitrary: fc.constant('POST') },
        { weight: 1, arbitrary: fc.constantFrom('GET', 'DELETE', 'PUT', 'HEAD') },
      ),
      body: bodyText(message),
      headers: headers(true),
      accept: fc.constantFrom(
        'application/json, text/event-stream',
        'application/json, text/event-stream',
        'application/json',
        'text/event-stream',
        undefined,
      ),
    })
    .map(({ method, body, headers: h, accept }) => {
      if (accept !== undefined) h.Accept = accept;
      const sendsBody = methodsWithBody.has(method) && body !== undefined;
      if (!sendsBody) delete h['Content-Type'];
      if (method !== 'GET') delete h.Upgrade;
      return { operation: 'POST /mcp', method, target: '/mcp', headers: h, ...(sendsBody ? { body } : {}) };
    });
}

/** Paths no route has (or routes' near misses), with any method. */
function unknownRouteRequest(): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      path: fc.oneof(
        fc.constantFrom(
          '/v1',
          '/v1/',
          '/v1/nope',
          '/v2/runs',
          '/v1/runs/x/nope',
          '/v1/runs/x/plans/1/diff',
          '/v1/runs/x/plans/1/diff/2/3',
          '//v1/runs',
          '/v1//runs',
          '/v1/runs/%2F',
          '/%2e%2e/%2e%2e/etc/passwd',
          '/v1/%00',
          '/v1/%FF',
          '/app',
          '/app/x/y',
          '/mcp/x',
          '/health/x',
          '/openapi.json/x',
          '/favicon.ico',
          '/v1/runs;x',
          '/v1/runs?%',
          '/' + 'a'.repeat(4000),
        ),
        fc.string({ unit: 'binary', maxLength: 30 }).map((s) => '/v1/' + encode(s)),
      ),
      method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'),
      headers: headers(false),
    })
    .map(({ path, method, headers: h }) => {
      if (method !== 'GET') delete h.Upgrade;
      return { operation: 'unknown route', method, target: path, headers: h };
    });
}

/**
 * Any request to the API: operations of the document (weighted by how many there are), `/mcp`, and
 * unknown routes. `ids` are the runs a path may name.
 */
export function apiRequest(ids: readonly string[]): fc.Arbitrary<FuzzRequest> {
  const idArb = fc.constantFrom(...ids);
  return fc.oneof(
    {
      weight: OPERATIONS.length,
      arbitrary: fc.constantFrom(...OPERATIONS).chain((op) => operationRequest(op, idArb)),
    },
    { weight: 4, arbitrary: mcpRequest(idArb) },
    { weight: 2, arbitrary: unknownRouteRequest() },
  );
}

/** A request for one operation only (`POST /v1/runs/{id}/approval` …), on `id`. */
export function requestFor(method: string, path: string, id: string): fc.Arbitrary<FuzzRequest> {
  const op = OPERATIONS.find((o) => o.method === method && o.path === path);
  if (!op) throw new Error(`No operation ${method} ${path}`);
  return operationRequest(op, fc.constant(id)).map((r) => {
    // The method is the operation's whatever was drawn: no `Upgrade` left from a GET drawn instead
    // (workerd sends a request with `Upgrade: websocket` as a GET, another route than asked for).
    const { Upgrade: _drawnForGet, ...headers } = r.headers;
    return {
      ...r,
      method,
      headers: method === 'GET' ? r.headers : headers,
      target: r.target.replace(/^(\/v1\/runs\/)[^/?]+/, `$1${encode(id)}`),
    };
  });
}

/** A short, printable account of a request for a failure message. */
export function describeRequest(r: FuzzRequest): string {
  const body =
    r.body === undefined
      ? '(no body)'
      : typeof r.body === 'string'
        ? JSON.stringify(r.body.length > 300 ? `${r.body.slice(0, 300)}… (${r.body.length} chars)` : r.body)
        : `bytes [${[...r.body.slice(0, 80)].join(',')}${r.body.length > 80 ? ',…' : ''}]`;
  const target = r.target.length > 300 ? `${r.target.slice(0, 300)}… (${r.target.length} chars)` : r.target;
  const headers = Object.fromEntries(
    Object.entries(r.headers).map(([k, v]) => [k, v.length > 60 ? `${v.slice(0, 60)}… (${v.length})` : v]),
  );
  return `${r.method} ${target} ${JSON.stringify(headers)} ${body}`;
}
