/**
 * The name an approver gives with a decision (`approver`), kept in this browser so it is typed once:
 * recorded on the decision's event as given — a label for the history, not who is signed in. Behind
 * Cloudflare Access it is who is signed in: the verified identity, which the API records whatever is
 * typed (and refuses another name), so the typed one is not sent.
 */
import { useState } from 'preact/hooks';
import { useSignedIn } from './use-signed-in';

const NAME_KEY = 'edgeplan.approver';

function stored(): string {
  try {
    return localStorage.getItem(NAME_KEY) ?? '';
  } catch {
    return '';
  }
}

/** The name as typed (the signed-in identity behind Access), and a setter that remembers it (or forgets it when cleared). */
export function useApproverName(): [string, (name: string) => void] {
  const [name, setName] = useState(stored);
  const signedIn = useSignedIn();
  const set = (next: string) => {
    setName(next);
    try {
      if (next.trim()) localStorage.setItem(NAME_KEY, next.trim());
      else localStorage.removeItem(NAME_KEY);
    } catch {
      // storage refused (private mode): the name lasts this page only
    }
  };
  return [signedIn ?? name, set];
}

/** The name as a decision body sends it: trimmed, left out when empty. */
export const approverOf = (name: string): { approver?: string } =>
  name.trim() ? { approver: name.trim() } : {};
