/** Vite's `?raw` imports (a file's text), which vitest resolves in every project. */
declare module '*?raw' {
  const text: string;
  export default text;
}
