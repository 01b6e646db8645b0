/**
 * Raw MCP and OAuth requests for tests that look at the HTTP itself (status codes, challenges,
 * error bodies) rather than through the SDK client.
 */
import { sendFrom, type ApiResponse } from './http.js';

const JSON_RPC_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };

export function mcpCall(origin: string, accessToken: string | null, message: unknown, headers: Record<string, string> = {}): Promise<ApiResponse> {
  return sendFrom({
    method: 'POST',
    url: `${origin}/mcp`,
    headers: { ...JSON_RPC_HEADERS, ...(accessToken ? { authorization: `Bearer ${accessToken}` } : {}), ...headers },
    body: JSON.stringify(message),
  });
}

export const toolsList = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };

export function tokenRequest(origin: string, form: Record<string, string>): Promise<ApiResponse> {
  return sendFrom({
    method: 'POST',
    url: `${origin}/oauth/token`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
}
