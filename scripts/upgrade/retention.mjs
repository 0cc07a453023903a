/**
 * The retention sweep across a deploy (scripts/upgrade-rehearsal.mjs): runs one release ended, while
 * RUN_RETENTION_DAYS was unset, are swept by the OTHER release's Cron Trigger once it serves with the
 * variable set — forward (this release sweeping what the old one ended) and back (the old release,
 * rolled back to, sweeping what this one ended). The swept runs are not read in between: reading an
 * ended run arms its own retention alarm, and only the sweep is to find these. A run still waiting
 * is not swept.
 *
 * @example
 * const sweep = retentionSweep('forward', { call, check, until });
 * await sweep.leave(create, get);            // under the releases that ends them
 * await sweep.swept(base);                   // under the other, served with sweep.vars
 */

/**
 * The retention the sweeping server is given by default: short, so the rehearsal waits little for it,
 * and long enough that a run this release ends while the checks still read it is not gone first.
 */
export const RETENTION_S = 120;
const CRON = '*/5+*+*+*+*';

/** `RUN_RETENTION_DAYS` for a retention of `seconds`. */
export const retentionDays = (seconds) => String(seconds / 86_400);

export function retentionSweep(name, { call, check, until }, retentionS = RETENTION_S) {
  const ended = [];
  let waiting = null;
  let newer = null;
  let endedBy = 0;

  /**
   * Leaves two ended runs (completed, cancelled) and one awaiting input, none read once ended; with
   * `formatTwo`, also an ended run stored in format 2 (`approval.revisions: "ask"`), which a release
   * before that format cannot read and so must not delete.
   */
  async function leave(create, get, { formatTwo = false } = {}) {
    const done = await create({
      plan: { steps: [{ id: 'e', action: 'demo.echo', parameters: { swept: name } }] },
    });
    const cancelled = await create({
      plan: { steps: [{ id: 'q', action: 'human.input', parameters: { prompt: 'Never answered' } }] },
    });
    waiting = await create({
      plan: { steps: [{ id: 'q', action: 'human.input', parameters: { prompt: 'Still waiting' } }] },
    });
    await until(
      `${name} sweep: the runs at rest`,
      async () => (await get(`/v1/runs/${done}`)).status,
      (s) => s === 'completed',
    );
    await until(
      `${name} sweep: a run asking`,
      async () => (await get(`/v1/runs/${cancelled}`)).status,
      (s) => s === 'awaiting_input',
    );
    await call('POST', `/v1/runs/${cancelled}/cancel`, { reason: 'to be swept' });
    await until(
      `${name} sweep: the cancelled run`,
      async () => (await get(`/v1/runs/${cancelled}`)).status,
      (s) => s === 'cancelled',
    );
    await until(
      `${name} sweep: the waiting run`,
      async () => (await get(`/v1/runs/${waiting}`)).status,
      (s) => s === 'awaiting_input',
    );
    ended.push(done, cancelled);
    if (formatTwo) {
      newer = await create({
        plan: { steps: [{ id: 'n', action: 'demo.echo', parameters: {} }] },
        config: { require_plan_approval: true, approval: { revisions: 'ask' } },
      });
      await call('POST', `/v1/runs/${newer}/cancel`, { reason: 'to be swept' });
      await until(
        `${name} sweep: the format-2 run`,
        async () => (await get(`/v1/runs/${newer}`)).status,
        (s) => s === 'cancelled',
      );
    }
    endedBy = Date.now();
  }

  const listed = async () => ((await call('GET', '/v1/runs?limit=100')).body.runs ?? []).map((r) => r.run_id);

  /** Under the other release, served with `vars`: one Cron Trigger invocation deletes the ended runs. */
  async function swept(base) {
    const before = await listed();
    check(
      `${name} sweep: the ended runs still listed before the Cron Trigger`,
      ended.every((id) => before.includes(id)),
      before.length ? '' : 'none listed',
    );
    // Past their retention by their own completed_at (which the object judges by).
    const due = endedBy + retentionS * 1000 + 2000 - Date.now();
    if (due > 0) await new Promise((r) => setTimeout(r, due));
    const fired = await fetch(`${base()}/cdn-cgi/local/scheduled?cron=${CRON}`);
    check(`${name} sweep: the Cron Trigger ran`, fired.ok, `${fired.status} ${await fired.text()}`);
    // Watched in the run index (D1) only: reading an ended run's object would arm its own retention
    // alarm and delete it, sweep or no sweep. A run that deletes itself leaves the index too.
    const after = await until(
      `${name} sweep: the ended runs gone from the index`,
      listed,
      (ids) => ended.every((id) => !ids.includes(id)),
      30_000,
    ).catch(() => null);
    const gone = await Promise.all(ended.map(async (id) => (await call('GET', `/v1/runs/${id}`)).status));
    check(
      `${name} sweep: the runs the other release ended are deleted (not listed, then 404)`,
      after !== null && gone.every((s) => s === 404),
      `${after === null ? 'still listed' : 'unlisted'} ${JSON.stringify(gone)}`,
    );
    const kept = await call('GET', `/v1/runs/${waiting}`);
    check(
      `${name} sweep: the run still waiting is kept`,
      kept.status === 200 && kept.body.status === 'awaiting_input' && (await listed()).includes(waiting),
      `${kept.status} ${kept.body.status}`,
    );
    if (newer === null) return;
    const refused = await call('GET', `/v1/runs/${newer}`);
    check(
      `${name} sweep: the ended run stored in a format this release does not read is kept (503 run_newer_format, listed)`,
      refused.status === 503 &&
        refused.body.error?.code === 'run_newer_format' &&
        (await listed()).includes(newer),
      `${refused.status} ${refused.body.error?.code ?? refused.body.status}`,
    );
  }

  return {
    vars: ['--var', `RUN_RETENTION_DAYS:${retentionDays(retentionS)}`],
    leave,
    swept,
  };
}
