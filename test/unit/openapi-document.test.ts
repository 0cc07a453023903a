/**
 * The OpenAPI document (#12): `redocly lint` with its recommended rules finds no error, every operation
 * has an `operationId` and a typed success answer, and the committed copy the client's types are
 * generated from (src/client/openapi.json, src/client/api-types.ts) is what the app serves now.
 */
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app';
import { openApiDocument } from '../../src/http/openapi';

const doc = openApiDocument(createApp(), 'http://localhost:8787');

describe('the OpenAPI document', () => {
  it('passes redocly lint (recommended) with no error', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({
      source: JSON.stringify(doc),
      absoluteRef: 'openapi.json',
      config,
    });
    const errors = problems
      .filter((p) => p.severity === 'error')
      .map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? '?'}`);
    expect(errors).toEqual([]);
  });

  it('names every operation and types every JSON success answer', () => {
    const missing: string[] = [];
    const untyped: string[] = [];
    const ids = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths ?? {})) {
      for (const [method, op] of Object.entries(item ?? {})) {
        if (typeof op !== 'object' || op === null || !('responses' in op)) continue;
        const operation = op as { operationId?: string; responses: Record<string, { content?: object }> };
        if (!operation.operationId) missing.push(`${method} ${path}`);
        else ids.add(operation.operationId);
        for (const [status, res] of Object.entries(operation.responses)) {
          const schema = (res.content as { 'application/json'?: { schema?: object } } | undefined)?.[
            'application/json'
          ]?.schema;
          const json = res.content && 'application/json' in res.content;
          if (status.startsWith('2') && json && (!schema || Object.keys(schema).length === 0))
            untyped.push(`${method} ${path} ${status}`);
        }
      }
    }
    expect(missing).toEqual([]);
    expect(untyped).toEqual([]);
    expect(ids.size).toBeGreaterThanOrEqual(24);
  });

  it('documents 429 rate_limited on every /v1 operation, and on nothing else', () => {
    const with429: string[] = [];
    const without: string[] = [];
    for (const [path, item] of Object.entries(doc.paths ?? {}))
      for (const [method, op] of Object.entries(item as Record<string, { responses?: object }>)) {
        const has = Object.keys(op.responses ?? {}).includes('429');
        (has === path.startsWith('/v1/') ? with429 : without).push(`${method} ${path}`);
      }
    expect(without).toEqual([]);
    expect(with429.length).toBeGreaterThanOrEqual(20);
  });

  it('describes /ws as an upgrade with its after parameter, and events as a union on event_type', () => {
    const ws = doc.paths?.['/v1/runs/{id}/ws']?.get;
    expect(Object.keys(ws?.responses ?? {})).toContain('101');
    expect((ws?.parameters ?? []).map((p) => ('name' in p ? p.name : ''))).toContain('after');
    const event = doc.components?.schemas?.RunEvent as {
      discriminator?: { propertyName: string };
      oneOf?: unknown[];
    };
    expect(event.discriminator?.propertyName).toBe('event_type');
    expect(event.oneOf?.length).toBeGreaterThan(20);
  });

  it('does not make request fields with defaults required', () => {
    type Obj = { required?: string[]; properties: Record<string, Obj & { default?: unknown }> };
    const create = doc.components?.schemas?.CreateRun as Obj;
    expect(create.required ?? []).toEqual([]);
    const config = create.properties.config!;
    const withDefaults = Object.entries(config.properties).filter(([, p]) => p.default !== undefined);
    expect(withDefaults.length).toBeGreaterThan(10);
    expect(config.required ?? []).toEqual([]);
  });
});
