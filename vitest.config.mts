import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin';
import { defineConfig } from 'vitest/config';

// Two layers (STYLE §11): pure modules in plain Node, everything that touches a binding in the
// Workers runtime with real Durable Objects, alarms, Queues, D1 and KV (Miniflare).
export default defineConfig(async () => {
  const migrations = await readD1Migrations('migrations');
  return {
    test: {
      // The JSON report is what .ci/run counts; the default reporter is for people.
      reporters: ['default', 'json'],
      outputFile: { json: 'test-results.json' },
      projects: [
        {
          test: { name: 'unit', include: ['test/unit/**/*.test.ts'], environment: 'node' },
        },
        {
          plugins: [
            cloudflareTest({
              wrangler: { configPath: './wrangler.toml' },
              miniflare: {
                bindings: {
                  DEMO_TOOLS: 'true',
                  TEST_MIGRATIONS: migrations,
                  WEBHOOK_SECRET: 'whsec_dGVzdHNlY3JldHRlc3RzZWNyZXQ=',
                },
              },
            }),
          ],
          test: {
            name: 'workers',
            include: ['test/workers/**/*.test.ts'],
            setupFiles: ['test/workers/apply-migrations.ts'],
          },
        },
        {
          // A deployment with an LLM configured (a scripted endpoint, injected with setLlmFetch): goal
          // runs plan inside the run's object, revisions call the planner.
          plugins: [
            cloudflareTest({
              wrangler: { configPath: './wrangler.toml' },
              miniflare: {
                bindings: {
                  DEMO_TOOLS: 'true',
                  TEST_MIGRATIONS: migrations,
                  OPENAI_API_KEY: 'sk-test-scripted',
                  OPENAI_BASE_URL: 'https://llm.test/v1',
                  PLANNER_MODEL: 'scripted-1',
                },
              },
            }),
          ],
          test: {
            name: 'workers-llm',
            include: ['test/workers-llm/**/*.test.ts'],
            setupFiles: ['test/workers/apply-migrations.ts'],
          },
        },
      ],
    },
  };
});
