/**
 * How large a step's values may be: its output (the run's `max_output_bytes`) and its resolved
 * parameters (a fixed ceiling). Sizes are the UTF-8 bytes of the value's JSON text, as stored and
 * sent. Checked by the engine, so every runtime (the Durable Object, the in-process runner) refuses
 * the same values with the same stable codes — as a failed attempt, which retries, fallbacks and the
 * failure strategy then handle like any other.
 */
import type { ErrorInfo } from '../errors';
import { OUTPUT_LIMIT_CEILING } from '../plan/config';
import { textStart } from '../text-cut';

/** The most a step's resolved parameters may take (16 MiB): what one call may carry with room to spare. */
export const MAX_PARAMETER_BYTES = OUTPUT_LIMIT_CEILING;

export const OUTPUT_TOO_LARGE = 'output_too_large';
export const PARAMETERS_TOO_LARGE = 'parameters_too_large';

/** UTF-8 length of a string without encoding it. */
export function utf8Bytes(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    // Two-byte sequences add one; three-byte ones add two; a surrogate pair (4 bytes) adds one a unit.
    bytes += c < 0x800 ? 1 : c >= 0xd800 && c <= 0xdfff ? 1 : 2;
  }
  return bytes;
}

/** A value's JSON text, as stored and sent (`null` for undefined). */
export function jsonText(value: unknown): string {
  // A function or symbol serialises to nothing: stored, it reads back as null.
  const text: string | undefined = JSON.stringify(value ?? null);
  return text ?? 'null';
}

/**
 * The size in bytes of a JSON text when it is over `limit`, else null. Exact near the limit only: a
 * text of `n` UTF-16 units takes between `n` and `3n` bytes.
 */
export function textBytesOver(text: string, limit: number): number | null {
  if (text.length * 3 <= limit) return null;
  const bytes = utf8Bytes(text);
  return bytes > limit ? bytes : null;
}

/** The value's JSON size in bytes when it is over `limit`, else null. */
export function bytesOver(value: unknown, limit: number): number | null {
  return textBytesOver(jsonText(value), limit);
}

/** `output_too_large` for an output over the run's limit, or null. */
export function outputLimitError(stepId: string, output: unknown, limit: number): ErrorInfo | null {
  return outputTextLimitError(stepId, jsonText(output), limit);
}

/** {@link outputLimitError} for an output already serialised. */
export function outputTextLimitError(stepId: string, text: string, limit: number): ErrorInfo | null {
  const bytes = textBytesOver(text, limit);
  if (bytes === null) return null;
  // At the ceiling there is nothing to raise: saying so sent users after a setting that cannot help.
  const remedy =
    limit >= OUTPUT_LIMIT_CEILING
      ? `(config.max_output_bytes, already the most a run allows); have the tool return less`
      : `(config.max_output_bytes, at most ${OUTPUT_LIMIT_CEILING}); raise it, or have the tool return less`;
  return {
    code: OUTPUT_TOO_LARGE,
    message:
      `Step "${stepId}" returned ${bytes} bytes of output, over the run's limit of ${limit} bytes ` +
      `${remedy} (store the bulk elsewhere and return a reference)`,
    // Not retried: the call succeeded, so another would repeat its effects (and most likely its size).
    retryable: false,
  };
}

/** `parameters_too_large` for resolved parameters (their JSON text) over {@link MAX_PARAMETER_BYTES}, or null. */
export function parametersLimitError(stepId: string, parametersText: string): ErrorInfo | null {
  const bytes = textBytesOver(parametersText, MAX_PARAMETER_BYTES);
  if (bytes === null) return null;
  return {
    code: PARAMETERS_TOO_LARGE,
    message:
      `Step "${stepId}" would be called with ${bytes} bytes of parameters once its references are ` +
      `resolved, over the limit of ${MAX_PARAMETER_BYTES} bytes; reference the part of a result the ` +
      `step needs (steps.x.output.field) rather than whole large results, or fewer of them`,
    retryable: false,
  };
}

/** The longest error message recorded, in characters; a tool's error can carry a whole response body. */
export const MAX_ERROR_MESSAGE = 16 * 1024;

/** The error with its message cut to {@link MAX_ERROR_MESSAGE}, saying how long it was. */
export function boundedError(error: ErrorInfo): ErrorInfo {
  const m = error.message;
  if (typeof m !== 'string' || m.length <= MAX_ERROR_MESSAGE) return error;
  return { ...error, message: `${textStart(m, MAX_ERROR_MESSAGE)}… (${m.length} characters in all)` };
}
