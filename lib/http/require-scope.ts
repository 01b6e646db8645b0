/**
 * 403 insufficient_scope when the route declared the scope it needs. A route whose scope depends
 * on the body (POST /posts: `write` for a draft, `publish` otherwise) calls requireScope from
 * lib/domain/scopes.ts itself instead.
 */
import type { Scope } from '../domain/model.js';
import { requireScope as checkScope } from '../domain/scopes.js';
import type { HttpMiddleware } from './pipeline-state.js';
import { pipelineState, verifiedCaller } from './pipeline-state.js';

export function requireScope(scope: Scope): HttpMiddleware {
  return {
    name: 'requireScope',
    before: (request) => {
      checkScope(verifiedCaller(pipelineState(request)), scope);
    },
  };
}
