/**
 * A refusal or failure the page reports: shown at once to assistive technology (an alert), nothing
 * when there is none.
 * @example <ErrorAlert text={error} />
 */
export function ErrorAlert({ text }: { text: string | null | undefined }) {
  return text ? (
    <p class="error" role="alert">
      {text}
    </p>
  ) : null;
}
