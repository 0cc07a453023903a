/**
 * A script that only runs another (`"dev": "npm start --"`) is an alias: what is given after `--` must
 * reach the script it names. `npm run dev -- --port 8790` with `"dev": "npm start"` became `npm start
 * --port 8790` — npm's own flag, dropped — and served on 8787 as if no port had been asked for.
 */
import { describe, expect, it } from 'vitest';
import rootManifest from '../../package.json';
import exampleManifest from '../../examples/custom-worker/package.json';

/** npm's lifecycle scripts, which npm runs itself and gives no arguments. */
const lifecycle = /^(pre|post)|^(prepare|prepack|postpack|install)$/;

function aliases(scripts: Record<string, string>): [string, string][] {
  return Object.entries(scripts).filter(
    ([name, command]) => !lifecycle.test(name) && /^npm (start|test|run [\w:-]+)\b[^&|;]*$/.test(command),
  );
}

describe('npm script aliases', () => {
  it('forward their arguments (`npm run dev -- --port 8790` reaches wrangler dev)', () => {
    const all = [...aliases(rootManifest.scripts), ...aliases(exampleManifest.scripts)];
    expect(all.map(([name]) => name)).toContain('dev');
    expect(all.filter(([, command]) => !/ --$/.test(command))).toEqual([]);
  });
});
