import { describe, expect, it } from 'vitest';
import { DASHBOARD_HTML, DASHBOARD_SCRIPT, scriptJson } from '../../src/http/dashboard/page';

describe('dashboard page', () => {
  it('has a script that parses as JavaScript', () => {
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- parsed, never called
    expect(() => new Function(DASHBOARD_SCRIPT)).not.toThrow();
  });

  it('never renders data as HTML nor evaluates strings', () => {
    for (const sink of [
      'innerHTML',
      'outerHTML',
      'insertAdjacentHTML',
      'document.write',
      'eval(',
      'new Function',
    ]) {
      expect(DASHBOARD_SCRIPT).not.toContain(sink);
    }
  });

  it('has an element for every id the script looks up', () => {
    const ids = [...DASHBOARD_SCRIPT.matchAll(/\$\('([\w-]+)'\)/g)].map((m) => m[1]);
    expect(ids.length).toBeGreaterThan(30);
    for (const id of new Set(ids)) expect(DASHBOARD_HTML, `#${id}`).toContain(`id="${id}"`);
    for (const k of ['total', 'pending', 'blocked', 'running', 'completed', 'failed', 'skipped']) {
      expect(DASHBOARD_HTML).toContain(`id="count-${k}"`);
    }
  });

  it('loads nothing from another origin', () => {
    expect(DASHBOARD_HTML).not.toMatch(/\b(src|href)="(https?:)?\/\//);
    expect(DASHBOARD_HTML).not.toMatch(/@import|url\(/);
  });

  it('labels every form control', () => {
    const controls = [...DASHBOARD_HTML.matchAll(/<(?:input|select|textarea)\b[^>]*\bid="([\w-]+)"/g)].map(
      (m) => m[1],
    );
    expect(controls.length).toBeGreaterThan(5);
    for (const id of controls) {
      const labelled =
        DASHBOARD_HTML.includes(`for="${id}"`) ||
        new RegExp(`<label[^>]*>\\s*<input[^>]*id="${id}"`).test(DASHBOARD_HTML);
      expect(labelled, `#${id} has a label`).toBe(true);
    }
  });

  it('embeds JSON that cannot close the script element', () => {
    const s = scriptJson({ text: '</script><script>alert(1)</script>', sep: '\u2028' });
    expect(s).not.toContain('</');
    expect(s).not.toContain('\u2028');
    expect(JSON.parse(s)).toEqual({ text: '</script><script>alert(1)</script>', sep: '\u2028' });
  });
});
