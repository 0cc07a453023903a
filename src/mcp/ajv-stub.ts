/**
 * What `ajv` and `ajv-formats` resolve to in the Worker bundle (wrangler.toml `[alias]`). The MCP SDK
 * imports ajv for its default JSON Schema validator, which compiles schemas with `new Function` — refused
 * by the Workers runtime — so edgeplan always passes its own (zod-backed) validator and ajv is never
 * constructed. Aliasing it away saves about 250 KB of bundle.
 * @example new Client(info, { jsonSchemaValidator: zodJsonSchemaValidator }); // never reaches this
 */
export default class AjvUnavailable {
  constructor() {
    throw new Error(
      'ajv is not bundled in the Worker: pass jsonSchemaValidator (see src/mcp/json-schema.ts)',
    );
  }
}
