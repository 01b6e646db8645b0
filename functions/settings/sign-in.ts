/** GET /settings/sign-in: starts an OpenID Connect sign-in and sends the browser to the provider. */
import { html } from '../../lib/web/html.js';
import { LOGIN_COOKIE, setCookie } from '../../lib/web/cookies.js';
import { signInLimiter, signInUseCase } from '../../lib/web/sign-in-dependencies.js';
import { webClock, webSettings } from '../../lib/web/web-dependencies.js';
import { publicHandler } from '../../lib/web/web-handler.js';
import { safeReturnPath } from '../../lib/web/web-request.js';

export const handler = publicHandler(async (request) => {
  // Each call stores a sign-in transaction: counted per address before anything is written.
  const decision = await signInLimiter().hit({ kind: 'address', address: request.sourceIp }, webClock.now());
  if (!decision.allowed) {
    return {
      kind: 'page',
      status: 429,
      title: 'Too many sign-ins',
      body: html`<p class="notice error" role="alert">Too many sign-ins were started from your network in the last minute. Wait a minute, then try again.</p>`,
    };
  }
  const started = await signInUseCase().start(safeReturnPath(request.query.returnTo));
  const cookie = setCookie(LOGIN_COOKIE, started.loginSecret, { path: '/settings/auth', maxAgeSeconds: started.maxAgeSeconds, secure: webSettings().secure });
  return { kind: 'redirect', location: started.authorizationUrl, cookies: [cookie] };
});
