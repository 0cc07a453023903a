/** Debian's chromium for the browser checks (never a downloaded one), headless. */
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** A headless chromium; `--no-sandbox`, as these machines run the tests as root. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
}
