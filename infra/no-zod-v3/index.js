// The MCP SDK imports Zod 3 to accept tool schemas written with it (zod-compat.js builds a Zod 3
// object only when every field of a shape is Zod 3); the assistant server's schemas are Zod 4
// (lib/mcp/tool-schemas.ts). Should a Zod 3 shape ever reach it, this says why instead of failing
// somewhere deeper.
function leftOut() {
  throw new Error('zod/v3 is left out of the function bundles (infra/constructs/bundling.ts): write MCP tool schemas with zod/v4.');
}
export const object = leftOut;
