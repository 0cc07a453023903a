/**
 * A run's input: what its plan's `{{ input.… }}` read. Open while the run awaits approval (when it
 * is short) — the plan shown for approval says `{{ input.team }}`, and the approver decides on what
 * that will read.
 */
import { useMemo } from 'preact/hooks';
import { JsonBlock, jsonText } from './json-block';

export function RunInput({ value, deciding }: { value: unknown; deciding: boolean }) {
  const text = useMemo(() => jsonText(value), [value]);
  return (
    <details class="final run-input" open={deciding && text.length < 600}>
      <summary>Input ({text.length.toLocaleString()} characters)</summary>
      <JsonBlock text={text} file="input.json" />
    </details>
  );
}
