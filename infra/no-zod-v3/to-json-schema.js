// The MCP SDK turns a Zod 3 schema into JSON Schema with zod-to-json-schema, and a Zod 4 one with
// Zod's own toJSONSchema; the assistant server's schemas are Zod 4 (see index.js).
export function zodToJsonSchema() {
  throw new Error('zod-to-json-schema is left out of the function bundles (infra/constructs/bundling.ts): write MCP tool schemas with zod/v4.');
}
