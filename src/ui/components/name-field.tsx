/**
 * Who decides or answers (`approver`): a name typed once and remembered in this browser, recorded as
 * given — or, behind Cloudflare Access, who is signed in, which the API records whatever is typed.
 */
import { useSignedIn } from '../use-signed-in';

export function NameField({
  name,
  onName,
  what,
  disabled = false,
}: {
  name: string;
  onName: (v: string) => void;
  /** What the name is recorded with: "decision", "answer". */
  what: string;
  disabled?: boolean;
}) {
  const signedIn = useSignedIn();
  return signedIn === null ? (
    <label class="decision-name">
      Your name <span class="muted">(optional, recorded with the {what} as you type it — not checked)</span>
      <input
        type="text"
        autocomplete="name"
        maxLength={120}
        value={name}
        disabled={disabled}
        onInput={(e) => onName((e.target as HTMLInputElement).value)}
      />
    </label>
  ) : (
    // Behind Cloudflare Access the API records who is signed in: nothing to type.
    <label class="decision-name">
      {what === 'decision' ? 'Approver' : 'Answered by'}{' '}
      <span class="muted">(signed in through Cloudflare Access, recorded with the {what})</span>
      <input type="text" value={signedIn} readOnly />
    </label>
  );
}
