/**
 * Scope rules of api-v1.md (Authentication, 4): `write`, `publish` and `media` each imply `read`;
 * `write` and `publish` are separate, not nested (a `publish`-only key cannot create drafts or
 * delete, a `write`-only key cannot create a post that goes out). `media` guards the media
 * library's writes (beyond-v2.md: POST /media, complete, PATCH and DELETE /media/{id}).
 */
import { ApiError } from './errors.js';
import type { Scope } from './model.js';

export function hasScope(granted: readonly Scope[], needed: Scope): boolean {
  if (granted.includes(needed)) return true;
  // Every scope a key can hold includes reading, so any scope at all satisfies `read`.
  return needed === 'read' && granted.length > 0;
}

/** Throws 403 insufficient_scope naming the scope the key (or the assistant's grant) lacks. */
export function requireScope(caller: { scopes: readonly Scope[]; credential?: 'api_key' | 'assistant_grant' }, needed: Scope): void {
  if (hasScope(caller.scopes, needed)) return;
  throw new ApiError('insufficient_scope', insufficientScopeMessage(caller.credential ?? 'api_key', needed));
}

export function insufficientScopeMessage(credential: 'api_key' | 'assistant_grant', needed: Scope): string {
  return credential === 'assistant_grant'
    ? `The person did not allow this assistant the \`${needed}\` access this needs; ask them to approve it when the assistant signs in again.`
    : `This API key lacks the \`${needed}\` scope needed for this request.`;
}
