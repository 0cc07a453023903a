/**
 * A revision awaiting its approval across a rollback (scripts/upgrade-rehearsal.mjs, back), decided
 * each way a person decides one: THIS release leaves two runs whose v1 was approved and failed and
 * whose planner's v2 waits for approval (`approval.revisions: "ask"`); under the OLD release the
 * rejection (by the v2 webhook's link) and the edit (`modify`, by the API) are refused and nothing is
 * written; once THIS release is back, the same link rejects the one and the edit runs the other — no
 * version runs unapproved, no step twice. (Approving such a v2 is the rehearsal's `back revision`.)
 *
 * @example
 * const revisions = pendingRevisions('back', ctx);
 * await revisions.leave();     // under this release
 * await revisions.refused();   // under the old one
 * await revisions.decided();   // under this release again
 */

export function pendingRevisions(tag, { llm, call, check, until, create, ended, hookUrl, deliveries, once }) {
  const runs = {};
  const seqs = {};
  const step = (id, action, parameters, deps = []) => ({ id, action, parameters, dependencies: deps });
  // Keys of their own: the rehearsal's other runs count under `${tag}-a` too.
  const counter = (run, id) => step(id, 'demo.counter', { key: `${tag}-${run}-${id}` });
  const broken = (id) =>
    step(id, 'demo.flaky', { key: `${tag}-${id}`, fail_times: 99, permanent: true }, ['a']);
  const linkOf = (id, version) => {
    const d = deliveries.find((x) => x.run_id === id && x.plan_version === version);
    return d && new URL(d.approval_url);
  };
  const read = async (id) => (await call('GET', `/v1/runs/${id}`)).body;

  /** Under this release: both runs at their v2, awaiting approval, its webhook delivered. */
  async function leave() {
    for (const name of ['reject', 'modify']) {
      const script = `${tag}-${name}`;
      llm.script(script, [
        JSON.stringify({ steps: [counter(name, 'a'), broken(`${name}1`)] }),
        JSON.stringify({ steps: [counter(name, 'a'), broken(`${name}2`)] }),
      ]);
      runs[name] = await create({
        goal: `count and break (${script})`,
        config: {
          execution_mode: 'sequential',
          require_plan_approval: true,
          approval: { webhook_url: hookUrl, revisions: 'ask', timeout_s: 3600 },
        },
      });
    }
    for (const id of Object.values(runs)) {
      await until(
        `run ${id}`,
        () => read(id),
        (r) => r.status === 'awaiting_approval',
      );
      await call('POST', `/v1/runs/${id}/approval`, { decision: 'approve', comment: 'v1 ok' });
    }
    for (const [name, id] of Object.entries(runs)) {
      // The webhook's delivery is recorded (ApprovalWebhookAttempted) once its receiver has answered.
      const delivered = async () => {
        const events = (await call('GET', `/v1/runs/${id}/events?limit=1000`)).body.events ?? [];
        const asked = events.findLast((e) => e.event_type === 'ApprovalRequested');
        return events.some(
          (e) => e.event_type === 'ApprovalWebhookAttempted' && e.seq > asked?.seq && e.payload.ok,
        );
      };
      const r = await until(
        `run ${id} at v2 with its link`,
        async () => ({ delivered: await delivered(), link: linkOf(id, 2), ...(await read(id)) }),
        (r) =>
          r.status === 'awaiting_approval' && r.plan_version === 2 && r.link !== undefined && r.delivered,
      );
      seqs[name] = r.last_seq;
    }
  }

  /** Under the old release: each decision refused (503 run_newer_format), the link's page too. */
  async function refused() {
    const link = linkOf(runs.reject, 2);
    const page = await call('GET', `${link.pathname}${link.search}`);
    const rejected = await call('POST', `${link.pathname}${link.search}`, {
      decision: 'reject',
      comment: 'no',
    });
    check(
      'back revisions: the v2 link’s page and its reject refused by the old release (503 run_newer_format)',
      page.status === 503 && rejected.status === 503 && rejected.body.error?.code === 'run_newer_format',
      `${page.status} ${rejected.status} ${rejected.body.error?.code ?? JSON.stringify(rejected.body).slice(0, 200)}`,
    );
    const modified = await call('POST', `/v1/runs/${runs.modify}/approval`, {
      decision: 'modify',
      plan: { steps: [counter('modify', 'a'), step('fixed', 'demo.echo', { edited: true }, ['a'])] },
      comment: 'edited under the old release',
    });
    check(
      'back revisions: an edit of v2 refused by the old release (503 run_newer_format)',
      modified.status === 503 && modified.body.error?.code === 'run_newer_format',
      `${modified.status} ${modified.body.error?.code ?? JSON.stringify(modified.body).slice(0, 200)}`,
    );
  }

  /** Under this release again: the old release wrote nothing; the link rejects, the edit runs. */
  async function decided() {
    const now = { reject: await read(runs.reject), modify: await read(runs.modify) };
    check(
      'back revisions: nothing written by the old release, both still awaiting v2',
      Object.entries(now).every(
        ([n, r]) => r.status === 'awaiting_approval' && r.plan_version === 2 && r.last_seq === seqs[n],
      ),
      Object.entries(now)
        .map(([n, r]) => `${n} ${r.status} v${r.plan_version} seq ${seqs[n]}→${r.last_seq}`)
        .join(', '),
    );
    const link = linkOf(runs.reject, 2);
    const rejected = await call('POST', `${link.pathname}${link.search}`, {
      decision: 'reject',
      comment: 'no',
    });
    const r = await ended(runs.reject);
    check(
      'back revisions: the same v2 link rejects it under this release; cancelled plan_rejected',
      rejected.status === 200 && r.status === 'cancelled' && r.termination_reason === 'plan_rejected',
      `${rejected.status} ${r.status} ${r.termination_reason}`,
    );
    const edited = await call('POST', `/v1/runs/${runs.modify}/approval`, {
      decision: 'modify',
      plan: { steps: [counter('modify', 'a'), step('fixed', 'demo.echo', { edited: true }, ['a'])] },
      comment: 'edited once this release is back',
    });
    const m = await ended(runs.modify);
    check(
      'back revisions: the edit of v2 taken; the edited plan completes, its counter counted once',
      edited.status === 200 &&
        m.status === 'completed' &&
        m.step_results?.fixed?.edited === true &&
        m.step_results?.a?.value === 1,
      `${edited.status} ${m.status} ${JSON.stringify(m.step_results).slice(0, 200)}`,
    );
    for (const [name, id] of Object.entries(runs)) {
      const events = await once(`back revisions (${name})`, id);
      const asked = events
        .filter((e) => e.event_type === 'ApprovalRequested')
        .map((e) => e.payload.plan_version);
      const written = events.filter((e) => e.event_type === 'PlanUpdated').map((e) => e.payload.plan.version);
      // The approver's edit is a version of its own, approved by being the decision.
      const unasked = written.filter((v) => !asked.includes(v));
      const edit = name === 'modify' ? String(m.plan_version) : '';
      check(
        `back revisions (${name}): approval asked for v1 and v2; no other version but the approver’s edit`,
        asked.join() === '1,2' && unasked.join() === edit,
        `asked ${asked.join()} written ${written.join()}`,
      );
    }
  }

  return { leave, refused, decided };
}
