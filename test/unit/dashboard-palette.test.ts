/**
 * The dashboard's status colours (src/ui/style.css) against WCAG 2's contrast ratio: white badge text
 * on every status colour, and text drawn in a status colour, muted or as a link (errors, "✔ Valid",
 * not-started badges, the header's links) on the page's background and panels, in the light and the
 * dark theme: 4.5:1 at least.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// vitest runs from the repository's root.
const css = readFileSync('src/ui/style.css', 'utf8');

/** The custom properties of the first `:root { … }` after `from` in the stylesheet. */
function vars(from: number): Record<string, string> {
  const start = css.indexOf(':root {', from);
  const body = css.slice(start, css.indexOf('}', start));
  return Object.fromEntries([...body.matchAll(/(--[\w-]+):\s*([^;]+);/g)].map((m) => [m[1]!, m[2]!.trim()]));
}
const light = vars(0);
const dark = { ...light, ...vars(css.indexOf('@media (prefers-color-scheme: dark)')) };

/** A property's colour as #rrggbb, following var(…). */
function colour(theme: Record<string, string>, name: string): string {
  const v = theme[name];
  if (!v) throw new Error(`no ${name}`);
  const ref = /^var\((--[\w-]+)\)$/.exec(v);
  return ref ? colour(theme, ref[1]!) : v;
}
const luminance = (hex: string) =>
  [1, 3, 5]
    .map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)
    .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4))
    .reduce((sum, c, i) => sum + c * [0.2126, 0.7152, 0.0722][i]!, 0);
function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

describe('the dashboard palette', () => {
  it('computes WCAG contrast as the spec’s examples give it', () => {
    expect(contrast('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrast('#777777', '#ffffff')).toBeCloseTo(4.48, 2);
  });

  it('puts white badge text on every status colour at 4.5:1 or more, in both themes', () => {
    const faint = (['light', 'dark'] as const).flatMap((name) => {
      const theme = name === 'light' ? light : dark;
      return ['--ok', '--fail', '--run', '--wait', '--skip', '--stop']
        .map((v) => ({ at: `${name} ${v}`, ratio: contrast(colour(theme, v), '#ffffff') }))
        .filter((c) => c.ratio < 4.5);
    });
    expect(faint).toEqual([]);
  });

  it('draws status, muted and link text at 4.5:1 or more on the background and panels, in both themes', () => {
    const faint = (['light', 'dark'] as const).flatMap((name) => {
      const theme = name === 'light' ? light : dark;
      return ['--ok-text', '--fail-text', '--muted', '--link'].flatMap((fg) =>
        ['--bg', '--panel']
          .map((bg) => ({
            at: `${name} ${fg} on ${bg}`,
            ratio: contrast(colour(theme, fg), colour(theme, bg)),
          }))
          .filter((c) => c.ratio < 4.5),
      );
    });
    expect(faint).toEqual([]);
  });
});
