/**
 * The middy pipeline every settings page shares (API Gateway HTTP API, payload 2.0):
 *
 *   webResponse     outermost: the route's page (in the layout) or redirect becomes the HTTP
 *                   response, with the security headers (lib/web/security-headers.ts) on every one
 *   errorPage       the one place an error becomes a page: WebError with its status and message,
 *                   anything else a 500 that says nothing internal (the error is logged)
 *   session         the sp_session cookie -> the server-side session and its user; none (or one
 *                   past its absolute or idle end) sends a GET to sign-in (coming back afterwards)
 *                   and refuses a POST; a live one has its idle end pushed back
 *   csrf            every POST carries the session's token and comes from our origin, or 403
 *   route           (request, signedIn) => page | redirect, rendered in the person's time zone
 *                   (every time a page shows goes through lib/web/pages/format.ts formatTime)
 *
 * Per-request state lives in a WeakMap keyed by the event, as in lib/http/pipeline-state.ts.
 */
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { SCOPES } from '../domain/model.js';
import { idleEndToExtend, sessionIsLive } from '../domain/session-rules.js';
import { logger } from '../observability.js';
import { hashCookieSecret, readCookie, readTimeZoneCookie, SESSION_COOKIE } from './cookies.js';
import { CSRF_FIELD, csrfTokenMatches, originAllowed } from './csrf.js';
import { html } from './html.js';
import { inTimeZone } from './pages/format.js';
import { errorBody, layout } from './pages/layout.js';
import { personTimeZone } from '../use-cases/settings/time-zone.js';
import { securityHeaders, type SecurityHeaderOptions } from './security-headers.js';
import { sessionStore, userStore, webClock, webSettings } from './web-dependencies.js';
import { WebError } from './web-errors.js';
import { toWebRequest, type SignedIn, type WebRequest, type WebResult } from './web-request.js';

export type SignedInRoute = (request: WebRequest, signedIn: SignedIn) => Promise<WebResult>;
export type PublicRoute = (request: WebRequest) => Promise<WebResult>;

export type WebLambdaHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;
type WebMiddleware = middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, Context>;

interface WebState {
  request: WebRequest;
  signedIn: SignedIn | null;
}

const states = new WeakMap<APIGatewayProxyEventV2, WebState>();

export interface WebHandlerOptions {
  csp?: SecurityHeaderOptions;
}

function respond(result: WebResult, state: WebState | undefined, options: WebHandlerOptions): APIGatewayProxyStructuredResultV2 {
  const pageTargets = result.kind === 'page' ? (result.formActionOrigins ?? []) : [];
  const headers = securityHeaders({ ...options.csp, formActionOrigins: [...(options.csp?.formActionOrigins ?? []), ...pageTargets] });
  if (result.kind === 'redirect') {
    // 303: after a POST the browser GETs the next page, so a reload never posts twice.
    return { statusCode: 303, headers: { ...headers, Location: result.location }, cookies: result.cookies ?? [], body: '' };
  }
  const signedIn = result.signedOut ? null : state?.signedIn;
  const page = layout({
    title: result.title,
    body: result.body,
    path: state?.request.path ?? '/settings',
    ...(signedIn ? { signedIn: { email: signedIn.user.email, csrfToken: signedIn.session.csrfToken, timeZone: signedIn.timeZone } } : {}),
  });
  return {
    statusCode: result.status ?? 200,
    headers: { ...headers, 'Content-Type': 'text/html; charset=utf-8', ...(result.refreshTo ? { Refresh: `0; url=${result.refreshTo}` } : {}) },
    cookies: result.cookies ?? [],
    body: page.value,
  };
}

function errorResult(error: unknown, signedIn: boolean): WebResult {
  if (error instanceof WebError) {
    return { kind: 'page', status: error.status, title: error.status === 404 ? 'Not found' : 'Something is not right', body: errorBody(error.message, signedIn) };
  }
  logger.error('Settings request failed', { error: error instanceof Error ? error : String(error) });
  return { kind: 'page', status: 500, title: 'Something went wrong', body: errorBody('Something went wrong on our side. Please try again in a moment.', signedIn) };
}

function pipeline(options: WebHandlerOptions, steps: WebMiddleware[], run: (state: WebState) => Promise<WebResult>): WebLambdaHandler {
  const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, Context>()
    .use({
      name: 'errorPage',
      onError: (request) => {
        const state = states.get(request.event);
        request.response = respond(errorResult(request.error, Boolean(state?.signedIn)), state, options);
      },
    })
    .use({ name: 'requestContext', before: (request) => void states.set(request.event, { request: toWebRequest(request.event), signedIn: null }) })
    .use(steps)
    .handler(async (event) => {
      const state = states.get(event);
      if (!state) throw new Error('Web pipeline state missing');
      const render = async (): Promise<APIGatewayProxyStructuredResultV2> => respond(await run(state), state, options);
      return state.signedIn ? inTimeZone(state.signedIn.timeZone.timeZone, render) : render();
    });
  return (event, context) => handler(event, context);
}

/** The signed-in user behind the sp_session cookie, or null. */
async function loadSignedIn(request: WebRequest): Promise<SignedIn | null> {
  const cookie = readCookie(request.cookies, SESSION_COOKIE);
  if (!cookie) return null;
  const sessionKey = hashCookieSecret(cookie);
  const now = webClock.now();
  const session = await sessionStore().getSession(sessionKey, now);
  if (!session || !sessionIsLive(session, now)) return null;
  // Sliding idle end: pushed back at most every few minutes (one UpdateItem then, none otherwise).
  const idleExpiresAt = idleEndToExtend(session, now);
  if (idleExpiresAt) {
    await sessionStore().extendIdle(sessionKey, idleExpiresAt);
    session.idleExpiresAt = idleExpiresAt;
  }
  const user = await userStore().getUser(session.userId);
  if (!user) return null;
  const timeZone = personTimeZone(user, readTimeZoneCookie(request.cookies));
  return { user, session, sessionKey, caller: { userId: user.id, keyId: 'settings-session', scopes: [...SCOPES], user }, timeZone };
}

function sessionStep(): WebMiddleware {
  return {
    name: 'session',
    before: async (request) => {
      const state = states.get(request.event);
      if (!state) return;
      state.signedIn = await loadSignedIn(state.request);
      if (state.signedIn) return;
      if (state.request.method === 'GET') {
        const query = request.event.rawQueryString ? `?${request.event.rawQueryString}` : '';
        const returnTo = encodeURIComponent(`${state.request.path}${query}`);
        return respond({ kind: 'redirect', location: `/settings/sign-in?returnTo=${returnTo}` }, state, {});
      }
      throw new WebError(403, 'session_required', 'Your session has ended. Sign in again, then repeat what you were doing.');
    },
  };
}

function csrfStep(): WebMiddleware {
  return {
    name: 'csrf',
    before: (request) => {
      const state = states.get(request.event);
      if (!state?.signedIn || state.request.method !== 'POST') return;
      if (!originAllowed(state.request.headers.origin, webSettings().origin) || !csrfTokenMatches(state.signedIn.session.csrfToken, state.request.form[CSRF_FIELD])) {
        throw new WebError(403, 'csrf_failed', 'This form has expired or did not come from this site. Reload the page and try again.');
      }
    },
  };
}

/** A page or action that needs a signed-in user (every settings page but sign-in and the callback). */
export function signedInHandler(route: SignedInRoute, options: WebHandlerOptions = {}): WebLambdaHandler {
  return pipeline(options, [sessionStep(), csrfStep()], (state) => {
    if (!state.signedIn) throw new Error('No signed-in user after the session step');
    return route(state.request, state.signedIn);
  });
}

/** Sign-in and its callback: nobody is signed in yet, so no session and no CSRF token (state and PKCE guard the callback). */
export function publicHandler(route: PublicRoute, options: WebHandlerOptions = {}): WebLambdaHandler {
  return pipeline(options, [], (state) => route(state.request));
}

/**
 * The answer to Sign out: rendered signed out (never with the session it just ended), and sending
 * the browser on through the provider's logout by itself, with a link in case it does not.
 */
export const signedOutPage = (providerLogoutUrl: string): WebResult => ({
  kind: 'page',
  title: 'Signed out',
  signedOut: true,
  refreshTo: providerLogoutUrl,
  body: html`<p class="notice" role="status">You are signed out. Signing you out of the sign-in page too…</p><p><a class="button primary" href="${providerLogoutUrl}">Continue</a></p>`,
});
