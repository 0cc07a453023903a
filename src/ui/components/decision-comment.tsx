/**
 * The approver's comment, sent with Approve or Reject (`comment`): a rejected run shows it as the
 * reason its plan was turned down.
 */
export function DecisionComment({
  value,
  onInput,
  disabled = false,
}: {
  value: string;
  onInput: (v: string) => void;
  disabled?: boolean;
}) {
  return (
    <label class="decision-comment">
      Comment <span class="muted">(optional, sent with Approve or Reject; a rejected run shows it)</span>
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
