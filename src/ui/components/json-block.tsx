/**
 * A value as indented JSON in a `<pre>`. A step's output may take 16 MiB (`max_output_bytes`), and
 * drawn whole it froze the page: past {@link DRAWN} characters only the start is drawn, with the whole
 * as a download.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { visibleJson } from '../visible-text';
import { textStart } from '../../text-cut';

/** The characters drawn at most. */
export const DRAWN = 2_000_000;

/** Indented JSON of a value (`undefined` says so rather than drawing nothing), hidden characters escaped. */
export const jsonText = (v: unknown) => visibleJson(JSON.stringify(v, null, 2) ?? 'undefined');

/** `value` as JSON; `file` names the download a large one offers. */
export function JsonBlock({ value, file, text: given }: { value?: unknown; file: string; text?: string }) {
  const text = useMemo(() => given ?? jsonText(value), [given, value]);
  const large = text.length > DRAWN;
  const [href, setHref] = useState('');
  useEffect(() => {
    if (!large) return;
    const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
    setHref(url);
    return () => URL.revokeObjectURL(url);
  }, [text, large]);
  if (!large) return <pre class="full">{text}</pre>;
  return (
    <div class="full">
      <p class="muted">
        The first {DRAWN.toLocaleString()} of {text.length.toLocaleString()} characters.{' '}
        {href ? (
          <a href={href} download={file}>
            Download the whole
          </a>
        ) : null}
      </p>
      <pre class="full">{textStart(text, DRAWN)}…</pre>
    </div>
  );
}
