/**
 * Reasoning blocks (`<think>…</think>`, as DeepSeek-R1 and Qwen3 write them into the content when the
 * server does not split them out) removed from a streamed answer line by line, so that a step the
 * model drafted while thinking is never taken for a step of the plan.
 */
export class ThinkFilter {
  #inside = false;

  /**
   * The line without its reasoning; null when nothing else is on it.
   * @example const f = new ThinkFilter(); f.take('<think>'); f.take('{"id": "draft"}') // null
   */
  take(line: string): string | null {
    let rest = line;
    let out = '';
    for (;;) {
      const lower = rest.toLowerCase();
      if (this.#inside) {
        const end = lower.indexOf('</think>');
        if (end === -1) break;
        rest = rest.slice(end + '</think>'.length);
        this.#inside = false;
        continue;
      }
      const start = lower.indexOf('<think>');
      if (start === -1) {
        out += rest;
        break;
      }
      out += rest.slice(0, start);
      rest = rest.slice(start + '<think>'.length);
      this.#inside = true;
    }
    return out.trim() === '' ? null : out;
  }
}
