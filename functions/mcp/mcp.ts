/** POST /mcp (GET and DELETE answer 405): the assistant server, Streamable HTTP, stateless. */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { mcpDependencies } from '../../lib/mcp/mcp-dependencies.js';
import { handleMcpRequest } from '../../lib/mcp/mcp-endpoint.js';
import { logger } from '../../lib/observability.js';

export const handler = async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
  let deps;
  try {
    deps = mcpDependencies();
  } catch (error) {
    // A missing variable is a deployment mistake: logged, answered without internals, retried next time.
    logger.error('MCP handler could not be built', { error: error instanceof Error ? error : String(error) });
    return { statusCode: 500, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Server misconfigured.' }, id: null }) };
  }
  return handleMcpRequest(event, deps);
};
