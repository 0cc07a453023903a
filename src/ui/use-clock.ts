/** The time now, ticking four times a second while `ticking` (a live run's elapsed times move). */
import { useEffect, useState } from 'preact/hooks';

export function useClock(ticking: boolean): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!ticking) return;
    const t = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(t);
  }, [ticking]);
  return now;
}
