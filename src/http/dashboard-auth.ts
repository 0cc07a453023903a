/**
 * What the dashboard's page is told about how its API calls are authenticated, so a first visit to a
 * deployment that needs an API token asks for one instead of sending requests the API can only
 * refuse (each a red `401` in the browser's console, on what is the normal first visit).
 */
import { apiTokens } from '../api-tokens';
import { accessConfig } from './access/config';

/**
 * `token` when every `/v1` request from a browser needs one of `API_TOKEN`'s tokens: a token is set
 * and Cloudflare Access, which would vouch for a signed-in browser instead, is not configured. Null
 * otherwise — an open API, Access, or a deployment without a token, whose `401` says what the
 * operator must set and is left for the page to show.
 * @example dashboardAuth({ API_TOKEN: 'tok' }) // 'token'
 */
export function dashboardAuth(env: {
  API_TOKEN?: string;
  ACCESS_TEAM_DOMAIN?: string;
  ACCESS_AUD?: string;
}): 'token' | null {
  if (accessConfig(env).kind !== 'off') return null;
  return apiTokens(env.API_TOKEN).length > 0 ? 'token' : null;
}
