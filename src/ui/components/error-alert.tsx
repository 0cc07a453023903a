/**
 * A refusal or failure the page reports: shown at once to assistive technology (an alert), nothing
 * when there is none.
 * @example <ErrorAlert text={error} />
 */
import { visibleText } from '../visible-text';

export function ErrorAlert({ text }: { text: string | null | undefined }) {
  return text ? (
    <p class="error" role="alert">
      {visibleText(text)}
    </p>
  ) : null;
}
