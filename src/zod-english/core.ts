/** zod/v4/core's exports with English the only locale (see ./index.ts). */
export * from 'zod/v4/core';
export * as locales from './locales';
