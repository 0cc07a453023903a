import { describe, expect, it } from 'vitest';
import { expandSettingsParams, isWorkerCredential, settingsEnvNames } from '../../src/plan/tea-settings';

describe('TEA settings ${VAR}', () => {
  it('never puts in a secret MCP_SERVERS’ headers read, also from a malformed or object-valued MCP_SERVERS', () => {
    const servers =
      '[{"name":"f","url":"https://m.example/mcp","headers":{"Authorization":"Bearer ${FILES_TOKEN}"}}]';
    for (const MCP_SERVERS of [servers, servers.slice(0, -3), JSON.parse(servers) as unknown]) {
      const env = { MCP_SERVERS, FILES_TOKEN: 'f-s3cret', OTHER: 'o' };
      expect(isWorkerCredential('FILES_TOKEN', env)).toBe(true);
      expect(
        expandSettingsParams({ k: '${FILES_TOKEN}', o: '${OTHER}', $env: ['FILES_TOKEN', 'OTHER'] }, env),
      ).toEqual({
        k: '${FILES_TOKEN}',
        o: 'o',
      });
    }
    expect(isWorkerCredential('FILES_TOKEN', { FILES_TOKEN: 'f' })).toBe(false);
    // As `wrangler dev` passes it when .dev.vars sets FILES_TOKEN too: expanded, the value in place.
    const expanded = {
      MCP_SERVERS: servers.replace('${FILES_TOKEN}', 'f-s3cret-value'),
      FILES_TOKEN: 'f-s3cret-value',
    };
    expect(isWorkerCredential('FILES_TOKEN', expanded)).toBe(true);
    expect(expandSettingsParams({ k: '${FILES_TOKEN}', $env: ['FILES_TOKEN'] }, expanded)).toEqual({
      k: '${FILES_TOKEN}',
    });
    expect(isWorkerCredential('ON', { MCP_SERVERS: '[{"name":"true"}]', ON: 'true' })).toBe(false);
    // A value in a server's URL is not its secret: HTTP_ALLOWLIST's 127.0.0.1 beside a local server.
    expect(
      isWorkerCredential('HTTP_ALLOWLIST', {
        ...expanded,
        MCP_SERVERS: '[{"url":"http://127.0.0.1:9/mcp"}]',
        HTTP_ALLOWLIST: '127.0.0.1',
      }),
    ).toBe(false);
    expect(isWorkerCredential('API_TOKEN', {})).toBe(true);
  });

  it('lists the names settings read', () => {
    expect(settingsEnvNames({ llm: { model: '${M:-gpt-4}', key: 'k=${KEY}' }, n: [1, '${M}'] })).toEqual([
      'KEY',
      'M',
    ]);
  });

  it('puts the Worker’s value in a whole-string parameter only, for the names settings read', () => {
    const env = { M: 'gpt-4o', KEY: 'sk-secret', OTHER: 'x' };
    const out = expandSettingsParams(
      {
        model: '${M:-gpt-4}',
        key: '${KEY}',
        other: '${OTHER}',
        text: 'model ${M:-gpt-4}, unset ${UNSET:-fallback}, key ${KEY}',
        nested: [{ k: '${KEY}' }],
        $env: ['M', 'KEY', 'UNSET'],
      },
      env,
    );
    expect(out).toEqual({
      model: 'gpt-4o',
      key: 'sk-secret',
      other: '${OTHER}',
      // Inside text only defaults go in: a secret never lands in text a model's answer may have shaped.
      text: 'model ${M:-gpt-4}, unset fallback, key ${KEY}',
      nested: [{ k: 'sk-secret' }],
    });
    expect(expandSettingsParams({ key: '${KEY}' }, env)).toEqual({ key: '${KEY}' });
  });

  it('leaves the parameters a tool keeps as written, and expands the rest', () => {
    const env = { M: 'gpt-4o', TOPIC: 'secret topic' };
    const out = expandSettingsParams(
      { goal: '${TOPIC}', planner: { model: '${M}' }, $env: ['M', 'TOPIC'] },
      env,
      ['goal'],
    );
    expect(out).toEqual({ goal: '${TOPIC}', planner: { model: 'gpt-4o' } });
  });
});
