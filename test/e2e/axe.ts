/**
 * axe-core (a devDependency: never in the Worker's bundle) run in a page of the browser tests: its
 * source injected as a script, then `axe.run` over the whole document. The page's context must be
 * opened with `bypassCSP: true` (the dashboard's CSP allows scripts from its own origin only).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import type AxeCore from 'axe-core';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export type Violation = { id: string; impact: string | null; help: string; nodes: string[] };

/** Every axe violation on the page as it is drawn now: rule, impact, and each element's selector and why. */
export async function axeViolations(page: Page): Promise<Violation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: AXE_SOURCE });
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: typeof AxeCore }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact ?? null,
      help: v.help,
      nodes: v.nodes.map((n) => `${n.target.join(' ')} — ${n.failureSummary ?? ''}`),
    }));
  });
}

/** The serious and critical ones: what a keyboard or screen-reader user cannot get past. */
export async function seriousViolations(page: Page): Promise<Violation[]> {
  return (await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
