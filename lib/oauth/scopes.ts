/**
 * What an assistant may be allowed to do, in the API's own scope names (api-v1.md, Authentication):
 * a grant's scopes become the Caller's scopes, so the use cases apply exactly the rules they apply
 * to an API key. `media` adds files to the library (import_media, as POST /media); list_media
 * reads it, which `read` covers (docs/assistant-server.md).
 */
export const MCP_SCOPES = ['read', 'write', 'publish', 'media'] as const;
export type McpScope = (typeof MCP_SCOPES)[number];

/** What the consent page says each scope allows. */
export const SCOPE_DESCRIPTIONS: Record<McpScope, string> = {
  read: 'See your connected accounts, your posts and your media library',
  write: 'Create drafts, and cancel or delete posts',
  publish: 'Publish posts on your connected accounts, now or scheduled',
  media: 'Add files to your media library from web addresses',
};

export function isMcpScope(value: string): value is McpScope {
  return (MCP_SCOPES as readonly string[]).includes(value);
}

/**
 * The scopes of an OAuth `scope` parameter (space-separated). Unknown scopes are dropped rather
 * than refused (RFC 6749 3.3 lets the server grant less than asked); null when nothing known is
 * left, which the caller turns into invalid_scope. Absent means every scope: the person narrows
 * it on the consent page.
 */
export function parseScopeParameter(value: string | undefined): McpScope[] | null {
  if (value === undefined || value.trim() === '') return [...MCP_SCOPES];
  const asked = new Set(value.split(' ').filter((scope) => scope !== ''));
  const known = MCP_SCOPES.filter((scope) => asked.has(scope));
  return known.length === 0 ? null : withRead(known);
}

/** Every scope implies reading (api-v1.md): a grant that may write or publish may also read. */
export function withRead(scopes: readonly McpScope[]): McpScope[] {
  const set = new Set<McpScope>(scopes);
  if (set.size > 0) set.add('read');
  return MCP_SCOPES.filter((scope) => set.has(scope));
}
