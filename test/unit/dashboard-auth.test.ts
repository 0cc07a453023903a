/** What the dashboard's page is told about auth: a token is needed only where one is set and Access is not. */
import { describe, expect, it } from 'vitest';
import { dashboardAuth } from '../../src/http/dashboard-auth';

describe('dashboardAuth', () => {
  it('says a token is needed where API_TOKEN holds one and Access is not configured', () => {
    expect(dashboardAuth({ API_TOKEN: 'tok' })).toBe('token');
    expect(dashboardAuth({ API_TOKEN: 'old, new' })).toBe('token');
  });

  it('says nothing for an open API, a token of separators only, or Access, which vouches instead', () => {
    expect(dashboardAuth({})).toBeNull();
    expect(dashboardAuth({ API_TOKEN: ' , ' })).toBeNull();
    expect(
      dashboardAuth({
        API_TOKEN: 'tok',
        ACCESS_TEAM_DOMAIN: 'https://team.cloudflareaccess.com',
        ACCESS_AUD: 'aud',
      }),
    ).toBeNull();
  });
});
