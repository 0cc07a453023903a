/** A run's final output, open when it is short. */
import { useMemo } from 'preact/hooks';
import { JsonBlock, jsonText } from './json-block';

export function FinalOutput({ value }: { value: unknown }) {
  const text = useMemo(() => jsonText(value), [value]);
  return (
    <details class="final" open={text.length < 600}>
      <summary>Final output ({text.length.toLocaleString()} characters)</summary>
      <JsonBlock text={text} file="final-output.json" />
    </details>
  );
}
