/** The one locale the Worker bundles (see ./index.ts): zod's default, English. */
export { en } from 'zod/v4/locales';
