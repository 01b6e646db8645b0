/**
 * Matches a request path against the routes of functions/catalogue.ts, for the unknown-route handler:
 * a path no route has is 404 route_not_found; a path some route has, asked with another method,
 * is 405 method_not_allowed with the methods that exist in Allow.
 */
export interface RouteTemplate {
  method: string;
  /** API Gateway template form, e.g. `/posts/{id}`. */
  path: string;
}

export type RouteMatch = { kind: 'not_found' } | { kind: 'method_not_allowed'; allow: string[] };

export function matchUnroutedRequest(
  routes: readonly RouteTemplate[],
  basePath: string,
  requestPath: string,
): RouteMatch {
  if (!requestPath.startsWith(`${basePath}/`)) return { kind: 'not_found' };
  const segments = requestPath.slice(basePath.length).split('/');
  const allow = routes.filter((route) => templateMatches(route.path.split('/'), segments)).map((route) => route.method);
  return allow.length === 0 ? { kind: 'not_found' } : { kind: 'method_not_allowed', allow: [...new Set(allow)].sort() };
}

function templateMatches(template: string[], segments: string[]): boolean {
  if (template.length !== segments.length) return false;
  return template.every((part, index) => {
    const segment = segments[index] ?? '';
    // A `{param}` matches any one non-empty segment, as API Gateway does.
    return /^\{[^}]+\}$/.test(part) ? segment !== '' : part === segment;
  });
}
