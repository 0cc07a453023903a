/**
 * What the dashboard's browser tests share: the API of the `wrangler dev` they started, a page opened
 * in their chromium (its script errors collected), and screenshots in test-results/screenshots/ for a
 * person to review. The server and browser are read when called: the tests start them in `beforeAll`.
 */
import type { Browser, Page } from 'playwright-core';

export type Json = Record<string, unknown>;

/** A plan that asks a person "Which city?" (step `ask`), then echoes the answer as `{city}` (step `use`). */
export function askThenUse(goal: string) {
  return {
    goal,
    steps: [
      { id: 'ask', action: 'human.input', parameters: { prompt: 'Which city?' } },
      {
        id: 'use',
        action: 'demo.echo',
        parameters: { city: '{{ steps.ask.output }}' },
        dependencies: ['ask'],
      },
    ],
  };
}
export const SHOTS = 'test-results/screenshots';

/**
 * `wrangler dev` variables for runs whose approval webhook goes to a loopback receiver
 * (webhook-receiver.ts): the signing secret, and 127.0.0.1 allowed as a webhook address.
 */
export const WEBHOOK_VARS = [
  '--var',
  'WEBHOOK_SECRET:whsec_dGVzdHNlY3JldHRlc3RzZWNyZXQ=',
  '--var',
  'HTTP_ALLOWLIST:127.0.0.1',
];

export function dashboardHelpers(ctx: () => { base: string; browser: Browser }) {
  async function api(method: string, path: string, body?: unknown): Promise<Json> {
    const res = await fetch(`${ctx().base}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return (await res.json()) as Json;
  }
  /** Polls the run every 50 ms until it has `status` (15 s at most). */
  async function waitForStatus(runId: string, status: string): Promise<Json> {
    for (let i = 0; i < 300; i++) {
      const run = await api('GET', `/v1/runs/${runId}`);
      if (run.status === status) return run;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`${runId} never reached ${status}`);
  }
  /** A new page at `path`; `before` runs first (routes, init scripts). */
  async function open(
    path: string,
    before?: (page: Page) => Promise<void>,
  ): Promise<{ page: Page; errors: string[] }> {
    const page = await ctx().browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await before?.(page);
    await page.goto(`${ctx().base}${path}`);
    return { page, errors };
  }
  const shot = (page: Page, name: string) => page.screenshot({ path: `${SHOTS}/${name}.png` });
  return { api, waitForStatus, open, shot };
}

/**
 * Runs in the page before its scripts: every button the page ever draws in `main` (its label) is kept
 * in `window.buttonsSeen`, and every text of the run's status badge in `window.badgesSeen`, however
 * briefly it was there.
 */
export function recordButtons() {
  const seen = new Set<string>();
  const badges = new Set<string>();
  Object.assign(window, { buttonsSeen: seen, badgesSeen: badges });
  new MutationObserver(() => {
    for (const b of document.querySelectorAll('main button'))
      seen.add(b.getAttribute('aria-label') ?? b.textContent?.trim() ?? '');
    const badge = document.querySelector('.toolbar .badge')?.textContent?.trim();
    if (badge) badges.add(badge);
  }).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
}

/**
 * Runs in the page before its scripts: every WebSocket hands on its messages until the page calls
 * `window.holdSockets()`, and none after — the page goes on showing the run as it last saw it, as when
 * its events are late, while the run moves on in the API.
 */
export function holdableWebSockets() {
  const Real = window.WebSocket;
  let held = false;
  Object.assign(window, { holdSockets: () => (held = true) });
  class Holdable extends EventTarget {
    private ws: WebSocket;
    constructor(url: string | URL, protocols?: string | string[]) {
      super();
      this.ws = new Real(url, protocols);
      this.ws.addEventListener('open', () => this.dispatchEvent(new Event('open')));
      this.ws.addEventListener('message', (e) => {
        if (!held) this.dispatchEvent(new MessageEvent('message', { data: e.data }));
      });
      this.ws.addEventListener('error', () => this.dispatchEvent(new Event('error')));
      this.ws.addEventListener('close', (e) => {
        if (!held) this.dispatchEvent(new CloseEvent('close', { code: e.code, reason: e.reason }));
      });
    }
    send(data: string) {
      this.ws.send(data);
    }
    close(code?: number, reason?: string) {
      this.ws.close(code, reason);
    }
  }
  window.WebSocket = Holdable as unknown as typeof WebSocket;
}

/**
 * Runs in the page before its scripts: `new WebSocket()` gives a stand-in that opens the real socket
 * only once `openWebSockets()` is called, relaying its events.
 */
export function holdWebSockets() {
  const Real = window.WebSocket;
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  (window as unknown as { openWebSockets(): void }).openWebSockets = open;
  class Held extends EventTarget {
    private ws: WebSocket | null = null;
    private closed = false;
    constructor(url: string | URL, protocols?: string | string[]) {
      super();
      void gate.then(() => {
        if (this.closed) return;
        const ws = new Real(url, protocols);
        this.ws = ws;
        ws.addEventListener('open', () => this.dispatchEvent(new Event('open')));
        ws.addEventListener('error', () => this.dispatchEvent(new Event('error')));
        ws.addEventListener('message', (e) =>
          this.dispatchEvent(new MessageEvent('message', { data: e.data })),
        );
        ws.addEventListener('close', (e) =>
          this.dispatchEvent(new CloseEvent('close', { code: e.code, reason: e.reason })),
        );
      });
    }
    send(data: string) {
      this.ws?.send(data);
    }
    close(code?: number, reason?: string) {
      this.closed = true;
      this.ws?.close(code, reason);
    }
  }
  window.WebSocket = Held as unknown as typeof WebSocket;
}
