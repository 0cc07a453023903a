/**
 * How a person's name on a decision or an answer was established (`approver_via`,
 * `answered_by_via`), in words — so a reader tells "ada@example.com (verified by Access)" from
 * "“Ada” (typed on the approval link)". The terminal and the dashboard say the same words. An event
 * recorded before the field existed, or with a value this release does not know, says nothing more
 * than it did.
 * @example
 * namedText('Ada', 'link') // '“Ada” (typed on the approval link)'
 * namedText('ada@example.com', 'access') // 'ada@example.com (verified by Access)'
 */

const WORDS: Record<string, string> = {
  access: 'verified by Access',
  token: 'given with the API token',
  link: 'typed on the approval link',
  anonymous: 'given without signing in',
};

/** How a decision without a name came, by `approver_via`: what a reader is told instead of a name. */
const UNNAMED: Record<string, string> = {
  access: 'by someone signed in with Access',
  token: 'with the API token',
  link: 'from the approval link',
  anonymous: 'through the API without a token',
};

/**
 * How a decision nobody put a name to came (`approver_via` without `approver`), in words to follow
 * "approved": `from the approval link`; null when the event does not say (one recorded before it).
 * @example unnamedDecisionWords('link') // 'from the approval link'
 */
export function unnamedDecisionWords(via: unknown): string | null {
  return typeof via === 'string' && Object.hasOwn(UNNAMED, via) ? UNNAMED[via]! : null;
}

/** The words for how a name was established, or null when the event does not say (or says what this release does not know). */
export function nameSourceWords(via: unknown): string | null {
  return typeof via === 'string' && Object.hasOwn(WORDS, via) ? WORDS[via]! : null;
}

/** ` (verified by Access)`: the words in brackets, to follow a name; '' when there are none. */
export function nameSourceNote(via: unknown): string {
  const words = nameSourceWords(via);
  return words === null ? '' : ` (${words})`;
}

/**
 * A name as a reader should take it: a verified identity as it is, any other name quoted (a label,
 * as given) — each followed by how it was established when the event says.
 */
export function quotedName(name: string, via: unknown): string {
  return via === 'access' ? name : `“${name}”`;
}

/** {@link quotedName} and {@link nameSourceNote}: `“Ada” (typed on the approval link)`. */
export function namedText(name: string, via: unknown): string {
  return `${quotedName(name, via)}${nameSourceNote(via)}`;
}
