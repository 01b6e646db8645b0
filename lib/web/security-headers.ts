/**
 * The headers every settings response carries. The Content-Security-Policy allows no inline
 * script or style at all: the pages load /settings/static/*.css and *.js from their own origin,
 * so an injected `<script>` or `onclick=` never runs even if escaping (lib/web/html.ts) failed.
 * Pages cannot be framed (clickjacking), sniffed into another type, or leak their URL to other
 * sites, and no page is stored by the browser or a proxy (a page may show a key once).
 */
export interface SecurityHeaderOptions {
  /** Extra origins a form may post to or be redirected to (an OAuth authorize page). */
  formActionOrigins?: readonly string[];
  /** Extra origins images may come from (media library thumbnails). */
  imageOrigins?: readonly string[];
}

export function contentSecurityPolicy(options: SecurityHeaderOptions = {}): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    ['img-src', "'self'", 'data:', ...(options.imageOrigins ?? [])].join(' '),
    "connect-src 'self'",
    ['form-action', "'self'", ...(options.formActionOrigins ?? [])].join(' '),
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

export function securityHeaders(options: SecurityHeaderOptions = {}): Record<string, string> {
  return {
    'Content-Security-Policy': contentSecurityPolicy(options),
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    // Not no-referrer: with it Chromium sends `Origin: null` on our own form posts, and the CSRF origin check needs the real one.
    'Referrer-Policy': 'same-origin',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cache-Control': 'no-store',
    Pragma: 'no-cache',
  };
}

/**
 * The API reference at /docs (web/api-reference/build.ts: Redoc, rendered from openapi.yaml) runs
 * under the same rules with three additions, each as narrow as Redoc allows:
 *
 * - style-src also allows one hash, that of the empty string: Redoc's styled-components adds
 *   empty <style> elements and fills them through the CSSOM (insertRule), which CSP does not
 *   govern. A <style> with any content, injected or not, still does not apply.
 * - font-src 'self' data: Redoc's icon font is a data: URL inside its stylesheet.
 * - form-action 'none': the page has no form.
 * No inline script runs (its scripts are files from /docs), nothing loads from another origin
 * (Redoc's logo from its CDN is refused and the page shows without it), connect-src 'self' keeps
 * "Try it" requests on this API.
 */
export const EMPTY_STYLE_HASH = "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='";

export function apiReferenceSecurityHeaders(): Record<string, string> {
  return {
    ...securityHeaders(),
    'Content-Security-Policy': [
      "default-src 'none'",
      "script-src 'self'",
      `style-src 'self' ${EMPTY_STYLE_HASH}`,
      "img-src 'self' data:",
      "font-src 'self' data:",
      "connect-src 'self'",
      "form-action 'none'",
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ].join('; '),
  };
}
