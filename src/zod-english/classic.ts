/** zod/v4's exports with English the only locale (see ./index.ts). */
export * from 'zod/v4';
export * as core from './core';
export * as locales from './locales';
/** zod's own `z` has no `z` member; this shadows the re-exported one, which would bring every locale back. */
export const z = undefined;
