import type { Scope, User } from './model.js';

/** Who is calling, once the API key is verified. */
export interface Caller {
  userId: string;
  keyId: string;
  scopes: Scope[];
  user: User;
}
