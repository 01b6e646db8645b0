/**
 * Every tool the assistant server registers advertises schemas a client can map onto any dialect
 * (what `npx @modelcontextprotocol/inspector --cli --strict` reports as warnings): no node with an
 * array of types (zod's bare `.nullable()`; use `nullable()` of lib/mcp/tool-schemas.ts) and no
 * node that accepts anything (`z.unknown()`). The tools are read off a real McpServer through the
 * SDK's own client, so a tool added to lib/mcp/tools.ts is checked without touching this file.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import type { Caller } from '../../../lib/domain/caller.js';
import { MCP_SERVER_OPTIONS, SERVER_INFO } from '../../../lib/mcp/mcp-endpoint.js';
import { registerTools, TOOL_SCOPES, type McpToolDeps } from '../../../lib/mcp/tools.js';

type Node = Record<string, unknown>;

/** Keywords that say what a value is; a schema node with none of them accepts anything. */
const DESCRIBING = ['type', 'const', 'enum', 'anyOf', 'oneOf', 'allOf', '$ref', 'not'];

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Paths of the nodes that break portability, with why. */
function unportable(schema: unknown, path = ''): string[] {
  if (!isNode(schema)) return schema === true || schema === false ? [`${path}: bare boolean schema`] : [];
  const found: string[] = [];
  if (Array.isArray(schema.type)) found.push(`${path}: type is an array ${JSON.stringify(schema.type)}`);
  if (!DESCRIBING.some((keyword) => keyword in schema)) found.push(`${path}: accepts any value`);
  for (const keyword of ['properties', 'patternProperties', '$defs', 'definitions']) {
    const children = schema[keyword];
    if (isNode(children)) for (const [name, child] of Object.entries(children)) found.push(...unportable(child, `${path}.${keyword}.${name}`));
  }
  for (const keyword of ['items', 'additionalProperties', 'propertyNames', 'contains', 'not']) {
    if (keyword in schema && schema[keyword] !== false) found.push(...unportable(schema[keyword], `${path}.${keyword}`));
  }
  for (const keyword of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) {
    const branches = schema[keyword];
    if (Array.isArray(branches)) branches.forEach((branch, index) => found.push(...unportable(branch, `${path}.${keyword}[${index}]`)));
  }
  return found;
}

async function listedTools(): Promise<{ name: string; inputSchema: unknown; outputSchema?: unknown }[]> {
  const server = new McpServer(SERVER_INFO, MCP_SERVER_OPTIONS);
  // Listing tools runs no use case: the dependencies are never called.
  const caller: Caller = { userId: 'usr_schema', keyId: 'grant_schema', scopes: ['read'], user: { id: 'usr_schema', email: 'a@example.com', active: true, monthlyPostAllowance: 1, workspaceIds: [], createdAt: '2026-01-01T00:00:00.000Z' } };
  registerTools(server, caller, {} as McpToolDeps);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'schema-check', version: '1.0.0' });
  await server.connect(serverSide);
  await client.connect(clientSide);
  try {
    return (await client.listTools()).tools;
  } finally {
    await client.close();
    await server.close();
  }
}

describe('tool schemas', () => {
  it('the checker finds what the inspector warns about', () => {
    expect(unportable({ type: 'object', properties: { a: { type: ['string', 'null'] }, b: {} } })).toEqual([
      '.properties.a: type is an array ["string","null"]',
      '.properties.b: accepts any value',
    ]);
    expect(unportable({ type: 'object', additionalProperties: { anyOf: [{ type: 'string', description: 'x' }, { type: 'null' }] } })).toEqual([]);
  });

  it('every registered tool has portable input and output schemas', async () => {
    const tools = await listedTools();
    expect(tools.length).toBeGreaterThan(0);
    const problems = tools.flatMap((tool) => [...unportable(tool.inputSchema, `${tool.name}.inputSchema`), ...unportable(tool.outputSchema ?? { type: 'object' }, `${tool.name}.outputSchema`)]);
    expect(problems).toEqual([]);
  });

  it('every registered tool names the scope it needs (the MCP endpoint answers 403 from it)', async () => {
    const names = (await listedTools()).map((tool) => tool.name).sort();
    expect(Object.keys(TOOL_SCOPES).sort()).toEqual(names);
  });
});
