/**
 * Escape closes what a button opened in the page (Modify's editor, Delete's question): pressed in it,
 * on the button that opened it, or with focus nowhere (after a click on the page's background) — not
 * while focus is in something else, whose own Escape it would take.
 * @example
 * useEscape(!busy, close, [panel, opener]);
 */
import { useLayoutEffect, useRef } from 'preact/hooks';
import type { RefObject } from 'preact';

export function useEscape(
  active: boolean,
  onEscape: () => void,
  within: readonly RefObject<HTMLElement | null>[],
): void {
  // The latest callback, without adding and removing the listener on every render.
  const latest = useRef(onEscape);
  latest.current = onEscape;
  // Before the browser paints what opened: an Escape pressed at once is not missed.
  useLayoutEffect(() => {
    if (!active) return;
    const onKeyDown = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented || e.isComposing) return;
      const at = document.activeElement;
      const ours = !at || at === document.body || within.some((r) => r.current?.contains(at));
      if (!ours) return;
      e.preventDefault();
      latest.current();
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [active]);
}
