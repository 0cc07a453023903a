/**
 * How the examples talk to a person: `examples/run.mjs` wires these to the terminal, tests to a
 * script. Kept out of the examples' logic so the same file runs in Node, in a Worker and in a test.
 */
export type ExampleIO = {
  log(line: string): void;
  /** Asks a question and resolves with the answer (the seed's `input()`). */
  ask(question: string): Promise<string>;
};

/** Prints with `console.log`; answers every question with `answer` (no terminal needed). */
export function consoleIO(answer = 'y'): ExampleIO {
  return {
    log: (line) => console.log(line),
    ask: (question) => {
      console.log(`${question}${answer}`);
      return Promise.resolve(answer);
    },
  };
}
