// The MCP SDK imports its ajv-based validator when it loads, but builds it only when a server is
// given no validator of its own; ours is given one (lib/mcp/mcp-endpoint.ts, MCP_SERVER_OPTIONS).
// Should anything ever build it, this says why instead of validating nothing.
export default class Ajv {
  constructor() {
    throw new Error('ajv is left out of the function bundles (infra/constructs/bundling.ts): pass the MCP server a jsonSchemaValidator.');
  }
}
export { Ajv };
