/**
 * OAuth errors (RFC 6749 5.2 and 4.1.2.1, RFC 7591 3.2.2, RFC 6750 3.1): `error` is the stable
 * code, `error_description` the human text. Raised by lib/oauth, shaped by functions/oauth.
 */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'access_denied'
  | 'invalid_client_metadata'
  | 'invalid_redirect_uri'
  | 'invalid_token'
  | 'server_error';

export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
    this.name = 'OAuthError';
  }

  toBody(): { error: OAuthErrorCode; error_description: string } {
    return { error: this.error, error_description: this.description };
  }
}

/**
 * The authorization request cannot be trusted to redirect (unknown client, redirect_uri not
 * registered): the person sees an error page and the browser goes nowhere (RFC 6749 4.1.2.1).
 */
export class AuthorizationPageError extends Error {
  constructor(
    message: string,
    /** 400, or 429 when the caller's address made too many requests (with Retry-After). */
    readonly status: 400 | 429 = 400,
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
    this.name = 'AuthorizationPageError';
  }
}
