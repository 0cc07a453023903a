/**
 * The approver's name and comment. The comment, sent with Approve, Reject or Modify (`comment`): a rejected run shows it as
 * the reason its plan was turned down, and a modified plan's new version gives it as its reason.
 */
import { NameField } from './name-field';

export function DecisionComment({
  value,
  onInput,
  name,
  onName,
  disabled = false,
}: {
  value: string;
  onInput: (v: string) => void;
  /** The decider's name (`approver`), recorded with the decision as given. */
  name: string;
  onName: (v: string) => void;
  disabled?: boolean;
}) {
  return (
    <div class="decision-inputs">
      <NameField name={name} onName={onName} what="decision" disabled={disabled} />
      <DecisionText value={value} onInput={onInput} disabled={disabled} />
    </div>
  );
}

function DecisionText({
  value,
  onInput,
  disabled,
}: {
  value: string;
  onInput: (v: string) => void;
  disabled: boolean;
}) {
  return (
    <label class="decision-comment">
      Comment{' '}
      <span class="muted">
        (optional, sent with Approve, Reject or Modify; a rejected run shows it, a modified plan's version
        gives it as the reason)
      </span>
      <textarea
        rows={2}
        maxLength={2000}
        value={value}
        disabled={disabled}
        onInput={(e) => onInput((e.target as HTMLTextAreaElement).value)}
      />
    </label>
  );
}
