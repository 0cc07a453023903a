/**
 * Where the CLI's notes to the person watching go (stderr): straight there, or — while the live view
 * draws on the terminal — through it, which clears the frame, writes the note and draws the view
 * again below it. A note written between two frames is erased by the next as a line of the view.
 */
let through: ((note: string) => void) | null = null;

/**
 * Writes `text` (one or more whole lines) for the person watching.
 * @example note('edgeplan: rate limited: retrying in 2 s (Ctrl-C to stop)\n')
 */
export function note(text: string): void {
  if (through) through(text);
  else process.stderr.write(text);
}

/** Sends the notes through `say` until the returned function is called. */
export function notesThrough(say: (note: string) => void): () => void {
  through = say;
  return () => void (through = null);
}
