/**
 * A real terminal for the CLI's e2e tests: a detached tmux session running one command, read by
 * `capture-pane`. Waits are on what the screen shows, bounded by a time rather than a count of
 * captures (a loaded CI machine takes longer to start the CLI and the run than a quiet one).
 */
import { execFileSync } from 'node:child_process';

export type Terminal = {
  /** The screen now; `history` includes the scrollback. */
  screen(history?: boolean): string;
  /**
   * Captures the screen every 100 ms until `done` holds and returns that screen; every capture is
   * passed to `frame`. Throws, with the last screen, when `done` has not held after `timeoutMs`.
   */
  until(
    done: RegExp | ((screen: string) => boolean),
    options?: { timeoutMs?: number; history?: boolean; frame?: (screen: string) => void },
  ): Promise<string>;
  keys(...keys: string[]): void;
  close(): void;
};

export function openTerminal(name: string, size: { cols: number; rows: number }, command: string): Terminal {
  const session = `${name}-${process.pid}`;
  const tmux = (...args: string[]) => execFileSync('tmux', args, { encoding: 'utf8' });
  tmux('new-session', '-d', '-s', session, '-x', String(size.cols), '-y', String(size.rows), command);
  const screen = (history = false) =>
    history
      ? tmux('capture-pane', '-p', '-S', '-', '-t', session)
      : tmux('capture-pane', '-p', '-t', session);
  return {
    screen,
    async until(done, { timeoutMs = 40_000, history = false, frame } = {}) {
      const holds = typeof done === 'function' ? done : (s: string) => done.test(s);
      const end = Date.now() + timeoutMs;
      for (;;) {
        const shown = screen(history);
        frame?.(shown);
        if (holds(shown)) return shown;
        if (Date.now() > end)
          throw new Error(`the terminal did not show ${String(done)} in ${timeoutMs} ms:\n${shown}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    keys(...keys) {
      for (const key of keys) tmux('send-keys', '-t', session, key);
    },
    close() {
      tmux('kill-session', '-t', session);
    },
  };
}
