/**
 * The client is typed from the document the app serves (#12): the committed copies
 * (src/client/openapi.json and the types generated from it, src/client/api-types.ts) must be what
 * `npm run gen:client` writes now. A route or schema changed without regenerating fails here.
 */
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app';
import { openApiDocument } from '../../src/http/openapi';
import committedDoc from '../../src/client/openapi.json';
import committedTypes from '../../src/client/api-types.ts?raw';
import { apiTypesSource, DOCUMENT_ORIGIN } from '../../scripts/client-types';

const STALE =
  'stale: run `npm run gen:client` and commit src/client/openapi.json and src/client/api-types.ts';

describe('the client’s generated types', () => {
  it('come from the document the app serves now', () => {
    const served = JSON.parse(JSON.stringify(openApiDocument(createApp(), DOCUMENT_ORIGIN))) as unknown;
    expect(served, STALE).toEqual(committedDoc);
  });

  it('are what openapi-typescript makes of that document', async () => {
    expect(await apiTypesSource(committedDoc), STALE).toBe(committedTypes);
  });
});
