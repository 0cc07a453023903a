/**
 * The approval links a run sent, newest last: the hash of each link's token and the plan version it
 * asked about. A revision or a rollback that asks about a new version mints a new link, and only the
 * newest one decides (tokens.ts); the list lets an older link's holder be told that a newer version
 * awaits and a new link went out (`410 approval_link_superseded`) instead of being refused as a
 * forged token is. Bounded: the current link and the {@link EARLIER_LINKS_KEPT} before it — an
 * older one answers `403` as a token never issued does.
 */
import { z } from 'zod';
import { constantTimeEqual } from './constant-time';
import { tokenHash } from './tokens';

/** How many links before the current one are recognised as superseded. */
export const EARLIER_LINKS_KEPT = 8;

/** One link sent: its token's hash, and the plan version it asked to decide on. */
export const IssuedLinkSchema = z.object({
  hash: z.string().regex(/^[0-9a-f]{64}$/, 'a SHA-256 in lowercase hex'),
  plan_version: z.number().int().min(1),
});
export type IssuedLink = z.infer<typeof IssuedLinkSchema>;

/** The stored list as read back (a longer one, hand-written, is cut to its newest on read). */
export const IssuedLinksSchema = z
  .array(IssuedLinkSchema)
  .transform((links) => links.slice(-(EARLIER_LINKS_KEPT + 1)));

/**
 * `links` with `issued` appended, keeping the newest {@link EARLIER_LINKS_KEPT} + 1.
 * @example withIssued([], { hash, plan_version: 1 }) // [{ hash, plan_version: 1 }]
 */
export function withIssued(links: readonly IssuedLink[], issued: IssuedLink): IssuedLink[] {
  return [...links, issued].slice(-(EARLIER_LINKS_KEPT + 1));
}

/**
 * The link of `links` whose token `presented` is, or null. Every hash is compared, in constant time,
 * whatever matched first, so how long the answer takes says nothing about which (if any) did.
 * @example await issuedLinkOf(links, url.searchParams.get('token') ?? '') // { hash, plan_version: 1 } | null
 */
export async function issuedLinkOf(
  links: readonly IssuedLink[],
  presented: string,
): Promise<IssuedLink | null> {
  // Longer strings cannot be tokens (tokens.ts refuses them too); hashed anyway, for the same time.
  const hash = await tokenHash(presented.length <= 256 ? presented : '');
  if (presented.length > 256) return null;
  let found: IssuedLink | null = null;
  for (const link of links) if (constantTimeEqual(hash, link.hash)) found = link;
  return found;
}
