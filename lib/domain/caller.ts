import type { Scope, User } from './model.js';

/** Who is calling, once the API key is verified. */
export interface Caller {
  userId: string;
  keyId: string;
  scopes: Scope[];
  user: User;
  /**
   * What the caller signed in with: an API key (the default) or an assistant's grant (the MCP
   * server, lib/oauth/token-service.ts). Errors name it, so an assistant is never told about "this
   * API key".
   */
  credential?: 'api_key' | 'assistant_grant';
}
