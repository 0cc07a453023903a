/**
 * A run's page open when the service, back, cannot serve the run: the run was stored by a newer
 * release than the one now deployed (a rollback, docs/upgrading.md "What a rollback does"), so every
 * read of it answers `503 run_newer_format` with what to do. The page keeps the run as last seen and
 * tries again, as for an outage — but says what the service answered, not "Connection lost", which
 * sent a person to look at their network while the fix was a deploy (found by the upgrade
 * rehearsal's rollback with this release's dashboard open, scripts/upgrade/dashboard.mjs).
 *
 * Real parts: `wrangler dev` killed, the run's object stamped with a format this release does not
 * read in its own SQLite file, and `wrangler dev` started again on the same state and port.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { restartableServer } from './restartable-server';

const dev = restartableServer('dashboard-newer-format');

/** Stamps run `runId`'s object (found by its first event) with storage format `format`. */
function stamp(runId: string, format: number) {
  const dir = join(dev.server().persist, 'v3', 'do', 'edgeplan-PlanRun');
  let stamped = 0;
  for (const f of readdirSync(dir).filter((f) => f.endsWith('.sqlite'))) {
    const db = new DatabaseSync(join(dir, f));
    try {
      const created = db.prepare('SELECT count(*) AS n FROM events WHERE seq = 1 AND body LIKE ?');
      if ((created.get(`%"${runId}"%`) as { n: number }).n === 0) continue;
      db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('storage_format', ?)").run(String(format));
      stamped += 1;
    } catch {
      // not a run's file (a demo counter's)
    } finally {
      db.close();
    }
  }
  expect(stamped).toBe(1);
}

describe('a run page when the service, back, cannot serve the run', () => {
  it('says what the service answers (run_newer_format), keeps the run as last seen, and no error', async () => {
    const created = await fetch(`${dev.server().base}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        plan: { goal: 'wait for me', steps: [{ id: 'a', action: 'demo.echo', parameters: {} }] },
        config: { require_plan_approval: true },
      }),
    });
    const { run_id } = (await created.json()) as { run_id: string };
    const page = await dev.browser().newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${dev.server().base}/#/runs/${run_id}`);
    await page.waitForSelector('[data-run-status="awaiting_approval"]');

    await dev.server().kill();
    stamp(run_id, 99);
    await dev.restart();
    const refused = await fetch(`${dev.server().base}/v1/runs/${run_id}`);
    expect(refused.status).toBe(503);

    const status = page.getByRole('status').filter({ hasText: 'cannot serve this run now' });
    await status.waitFor({ timeout: 30_000 });
    const text = await status.innerText();
    expect(text).toContain('run_newer_format');
    expect(text).toContain('showing the run as last seen');
    await expect(page.getByText('Connection lost').count()).resolves.toBe(0);
    await expect(page.locator('[data-run-status]').getAttribute('data-run-status')).resolves.toBe(
      'awaiting_approval',
    );
    await page.screenshot({ path: 'test-results/screenshots/run-newer-format.png' });
    expect(errors).toEqual([]);
  }, 180_000);
});
