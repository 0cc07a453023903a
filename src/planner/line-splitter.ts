/**
 * Complete lines out of text that arrives in arbitrary chunks (a streamed model answer): a line is
 * handed out once its newline has arrived, the rest when the stream ends.
 */
export class LineSplitter {
  #pending = '';

  /**
   * The lines completed by `chunk`, without their line endings.
   * @example const s = new LineSplitter(); s.push('{"a"'); s.push(':1}\n{"b"') // ['{"a":1}']
   */
  push(chunk: string): string[] {
    this.#pending += chunk;
    const parts = this.#pending.split(/\r?\n/);
    this.#pending = parts.pop() ?? '';
    return parts;
  }

  /** Whatever is left after the last newline (the final line of a stream without a trailing newline). */
  flush(): string[] {
    const rest = this.#pending;
    this.#pending = '';
    return rest.trim() === '' ? [] : [rest];
  }
}
