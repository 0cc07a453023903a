// The soak's load: each scenario is one user's errand against the API, and each varies the inputs an
// isolate might key a cache by — a condition, a template, a URL, a header, a token, an idempotency
// key — by its sequence number `i`, so a cache without a bound grows with the load.

const TERMINAL = ['completed', 'failed', 'aborted', 'cancelled'];

/** Creates a run; `{plan}` or `{format, source}` and config. Resolves with its id, or null. */
async function create(ctx, body, headers) {
  const r = await ctx.api('POST', '/v1/runs', body, headers);
  if (r.status !== 201) {
    ctx.note(`POST /v1/runs → ${r.status}`, JSON.stringify(r.body));
    return null;
  }
  ctx.runs.created++;
  return r.body.run_id;
}

/** Waits (the wait route, 50 s at most a call) until the run ends or, with `waiting`, waits on someone. */
async function waitFor(ctx, id, until = 'terminal') {
  for (let tries = 0; tries < 4; tries++) {
    const r = await ctx.api('GET', `/v1/runs/${id}/wait?until=${until}&timeout_s=50`);
    if (r.status !== 200) return null;
    if (!r.body.timed_out) return r.body.run;
  }
  ctx.note(`run ${id}`, `not ${until} after 200 s`);
  return null;
}

/** Waits for the end, then reads it the ways a dashboard does and deletes every other run. */
async function finish(ctx, id, i) {
  const run = await waitFor(ctx, id);
  if (run && TERMINAL.includes(run.status)) ctx.runs.ended++;
  await ctx.api('GET', `/v1/runs/${id}/status?include_details=true`);
  await ctx.api('GET', `/v1/runs/${id}/events?after=0`);
  await ctx.api('GET', `/v1/runs/${id}/plans`);
  if (i % 2 === 0) {
    const d = await ctx.api('DELETE', `/v1/runs/${id}`);
    if (d.status === 200) ctx.runs.deleted++;
  }
  return run;
}

const chain = (i, n = 5) => ({
  goal: `soak chain ${i}`,
  steps: Array.from({ length: n }, (_, k) => ({
    id: `s${k}`,
    action: 'demo.echo',
    parameters: k === 0 ? { i, tag: `t${i}` } : { prev: `{{ steps.s${k - 1}.output.i }}`, i },
    ...(k === n - 1 ? { when: `steps.s0.output.tag != 'never-${i}'` } : {}),
    ...(k === 1 ? { output_path: `state.v${i % 97}` } : {}),
  })),
});

/** A TEA workflow whose templates are new text each time (the compiled-template cache's key). */
const tea = (i, pad = '') => `name: soak-${i}
nodes:
  - name: count
    uses: demo.echo
    with:
      n: "{{ (state.n | default(0)) + 1 }}"
      mark: "{{ 'soak-${i}' | upper }}"${pad ? `\n      pad: "${pad}"` : ''}
    goto:
      - if: "state.n < 2"
        to: count
      - to: done
  - name: done
    uses: demo.echo
    with:
      total: "{{ state.n * ${i % 1000} }}"
      note: "{% if state.n > 1 %}two-${i}{% else %}one{% endif %}"
`;

export const SCENARIOS = {
  async chain(ctx, i) {
    const id = await create(ctx, { plan: chain(i), config: { execution_mode: 'parallel' } });
    if (id) await finish(ctx, id, i);
  },
  async tea(ctx, i) {
    const id = await create(ctx, { format: 'tea-yaml', source: tea(i), input: { n: 0 } });
    if (id) await finish(ctx, id, i);
  },
  async http(ctx, i) {
    const plan = {
      goal: `soak http ${i}`,
      steps: [
        {
          id: 'get',
          action: 'http.request',
          parameters: { url: `${ctx.targets.httpUrl}/item/${i}?q=${i}`, headers: { 'x-soak': `h${i}` } },
        },
        { id: 'echo', action: 'demo.echo', parameters: { got: '{{ steps.get.output }}' } },
      ],
    };
    const id = await create(ctx, { plan });
    if (id) await finish(ctx, id, i);
  },
  async mcp(ctx, i) {
    const plan = {
      goal: `soak mcp ${i}`,
      steps: [
        { id: 'a', action: 'mcp.soak.echo', parameters: { i } },
        { id: 'b', action: 'mcp.soak.echo', parameters: { i: i + 1 }, dependencies: ['a'] },
      ],
    };
    const id = await create(ctx, { plan });
    if (id) await finish(ctx, id, i);
  },
  async input(ctx, i) {
    const plan = {
      goal: `soak input ${i}`,
      steps: [
        { id: 'ask', action: 'human.input', parameters: { prompt: `Number ${i}?` } },
        { id: 'use', action: 'demo.echo', parameters: { answer: '{{ steps.ask.output }}' } },
      ],
    };
    const id = await create(ctx, { plan });
    if (!id) return;
    await waitFor(ctx, id, 'waiting');
    await ctx.api('POST', `/v1/runs/${id}/input`, { step_id: 'ask', input: { n: i }, approver: `p${i % 7}` });
    await finish(ctx, id, i);
  },
  async approval(ctx, i) {
    const id = await create(ctx, {
      plan: chain(i, 2),
      config: { require_plan_approval: true, approval: { timeout_s: 600 } },
    });
    if (!id) return;
    await waitFor(ctx, id, 'waiting');
    const decision = i % 3 === 0 ? 'reject' : 'approve';
    await ctx.api('POST', `/v1/runs/${id}/approval`, { decision, comment: `c${i}`, approver: `a${i % 5}` });
    await finish(ctx, id, i);
  },
  async flaky(ctx, i) {
    // Fails once, retried (a short delay); then one that fails for good, retried by hand once.
    const ok = await create(ctx, {
      plan: { steps: [{ id: 'f', action: 'demo.flaky', parameters: { fail_times: 1, key: `ok-${i}` } }] },
      config: { retry_failed_steps: 1, retry_delay: 0.05 },
    });
    if (ok) await finish(ctx, ok, i);
    const bad = await create(ctx, {
      plan: { steps: [{ id: 'f', action: 'demo.flaky', parameters: { fail_times: 9, key: `bad-${i}` } }] },
      config: { retry_failed_steps: 0 },
    });
    if (!bad) return;
    await waitFor(ctx, bad);
    await ctx.api('POST', `/v1/runs/${bad}/retry`, {});
    await finish(ctx, bad, i);
  },
  async cancel(ctx, i) {
    const id = await create(ctx, {
      plan: { steps: [{ id: 'z', action: 'demo.sleep', parameters: { ms: 60_000, value: i } }] },
    });
    if (!id) return;
    await ctx.api('GET', `/v1/runs/${id}`);
    const early = await ctx.api('DELETE', `/v1/runs/${id}`);
    if (early.status !== 409) ctx.note(`DELETE of a running run ${id}`, `answered ${early.status}, not 409`);
    await ctx.api('POST', `/v1/runs/${id}/cancel`, {});
    await finish(ctx, id, 0); // always deleted
  },
  async watch(ctx, i) {
    // A watcher that connects to a running run, reads a little and drops, and one that stays to the end.
    const id = await create(ctx, {
      plan: {
        steps: [
          { id: 'w', action: 'demo.sleep', parameters: { ms: 300, value: i } },
          { id: 'e', action: 'demo.echo', parameters: { x: '{{ steps.w.output }}' } },
        ],
      },
    });
    if (!id) return;
    const url = `${ctx.base.replace('http', 'ws')}/v1/runs/${id}/ws?after=0`;
    const protocols = ['edgeplan', `edgeplan.bearer.${Buffer.from(ctx.token).toString('base64url')}`];
    const dropped = new WebSocket(url, protocols);
    await new Promise((resolve) => {
      dropped.onmessage = () => {
        dropped.close();
        resolve();
      };
      dropped.onerror = dropped.onclose = resolve;
      setTimeout(resolve, 5_000);
    });
    dropped.close();
    const staying = new WebSocket(url, protocols);
    await new Promise((resolve) => {
      staying.onmessage = (m) => {
        if (/"RunTerminated"/.test(String(m.data))) resolve();
      };
      staying.onerror = staying.onclose = resolve;
      setTimeout(resolve, 20_000);
    });
    staying.close();
    await finish(ctx, id, i);
  },
  async mcpSession(ctx, i) {
    const rpc = (id, method, params) =>
      ctx.api(
        'POST',
        '/mcp',
        { jsonrpc: '2.0', ...(id === null ? {} : { id }), method, ...(params ? { params } : {}) },
        { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      );
    await rpc(1, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: `soak-${i % 13}`, version: '1' },
    });
    await rpc(null, 'notifications/initialized');
    await rpc(2, 'tools/list');
    await rpc(3, 'tools/call', { name: 'list_runs', arguments: { limit: 5 } });
    await rpc(4, 'tools/call', { name: 'validate_plan', arguments: { plan: chain(i, 2) } });
  },
  async large(ctx, i) {
    // Inputs a cache is keyed by, long and new each time: a condition and a template of ~20,000
    // characters, a parameter name of 100,000 holding a reference (the shared-locations table's key).
    const condition = `steps.s0.output.i == ${i}${' && steps.s0.output.i != -1'.repeat(700)}`;
    const plan = {
      goal: `soak large ${i}`,
      steps: [
        { id: 's0', action: 'demo.echo', parameters: { i } },
        {
          id: 's1',
          action: 'demo.echo',
          parameters: { [`k${i}`.padEnd(100_000, 'k')]: '{{ steps.s0.output.i }}' },
          when: condition,
        },
      ],
    };
    const id = await create(ctx, { plan });
    if (id) await finish(ctx, id, 0);
    const teaId = await create(ctx, {
      format: 'tea-yaml',
      source: tea(i, `{{ state.n }} ${i} `.repeat(1_000)),
    });
    if (teaId) await finish(ctx, teaId, 0);
  },
  async reads(ctx, i) {
    await ctx.api('GET', `/v1/runs?limit=20`);
    await ctx.api('GET', `/v1/tools${i % 25 === 0 ? '?refresh=true' : ''}`);
    await ctx.api('GET', '/v1/me');
    await ctx.api('GET', '/health');
    await ctx.api('POST', '/v1/plans/validate', { plan: chain(i, 3) });
  },
  async bad(ctx, i) {
    const expect4xx = async (what, p) => {
      const r = await p;
      if (r.status < 400 || r.status >= 500) ctx.note(`bad request ${what}`, `answered ${r.status}`);
    };
    await expect4xx('not JSON', ctx.api('POST', '/v1/runs', `{"plan": ${i}`));
    await expect4xx('empty', ctx.api('POST', '/v1/runs', {}));
    await expect4xx(
      'unknown tool',
      ctx.api('POST', '/v1/runs', { plan: { steps: [{ action: `no.such${i}` }] } }),
    );
    await expect4xx(
      'bad condition',
      ctx.api('POST', '/v1/runs', { plan: { steps: [{ action: 'demo.echo', when: `state.x == (${i}` }] } }),
    );
    await expect4xx(
      'bad template',
      ctx.api('POST', '/v1/runs', {
        format: 'tea-yaml',
        source: tea(i).replace('| upper }}', '| upper (}}'),
      }),
    );
    await expect4xx('no such run', ctx.api('GET', `/v1/runs/soak-missing-${i}`));
    await expect4xx(
      'wrong token',
      ctx.api('GET', '/v1/runs', undefined, { authorization: `Bearer wrong-${i}` }),
    );
    await expect4xx(
      'bad idempotency key',
      ctx.api('POST', '/v1/runs', { plan: chain(i, 1) }, { 'idempotency-key': `k${i}`.padEnd(256, 'k') }),
    );
    await expect4xx(
      'text body',
      ctx.api('POST', '/v1/runs', 'plan', { 'content-type': `text/plain; x=${i}` }),
    );
    await expect4xx('unknown route', ctx.api('GET', `/v1/nothing/${i}`));
    await expect4xx('mcp GET', ctx.api('GET', '/mcp'));
    await expect4xx('mcp empty batch', ctx.api('POST', '/mcp', '[]'));
    await expect4xx(
      'bad approval',
      ctx.api('POST', `/v1/runs/soak-missing-${i}/approval`, { decision: 'maybe' }),
    );
    if (i % 20 === 0)
      await expect4xx('too large', ctx.api('POST', '/v1/runs', { plan: { goal: 'x'.repeat(5_300_000) } }));
    // An idempotent create: once, then replayed.
    const body = { plan: chain(i, 1) };
    const key = `soak-${i}`;
    const first = await ctx.api('POST', '/v1/runs', body, { 'idempotency-key': key });
    if (first.status === 201) {
      ctx.runs.created++;
      const again = await ctx.api('POST', '/v1/runs', body, { 'idempotency-key': key });
      if (again.body?.run_id !== first.body.run_id) ctx.note('idempotent replay', 'answered another run');
      await finish(ctx, first.body.run_id, i);
    }
  },
};
