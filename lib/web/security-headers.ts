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
