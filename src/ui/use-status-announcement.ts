/**
 * A change of the run's status while its page is open, said once to assistive technology (the page
 * puts it in a polite live region): not the status the page opened on, nor those it passes through
 * while it replays the run's past, nor each step's progress.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { RunStatusNow } from './run-status';

/** The text to announce (empty until the status changes). */
export function useStatusAnnouncement({ acts, shown, completed, total }: RunStatusNow): string {
  const [announcement, setAnnouncement] = useState('');
  const announced = useRef<string | null>(null);
  useEffect(() => {
    if (!acts) return;
    if (announced.current !== null && announced.current !== shown)
      setAnnouncement(`Status: ${shown.replaceAll('_', ' ')}. ${completed} of ${total} steps completed.`);
    announced.current = shown;
  }, [acts, shown]);
  return announcement;
}
