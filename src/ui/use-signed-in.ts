/** The Cloudflare Access identity this browser is signed in as (src/ui/api.ts `signedInAs`), once known; null until then and without Access. */
import { useEffect, useState } from 'preact/hooks';
import { signedInAs } from './api';

export function useSignedIn(): string | null {
  const [who, setWho] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    void signedInAs().then((w) => {
      if (live) setWho(w);
    });
    return () => {
      live = false;
    };
  }, []);
  return who;
}
