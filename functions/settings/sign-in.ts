/** GET /settings/sign-in: starts an OpenID Connect sign-in and sends the browser to the provider. */
import { LOGIN_COOKIE, setCookie } from '../../lib/web/cookies.js';
import { signInUseCase } from '../../lib/web/sign-in-dependencies.js';
import { webSettings } from '../../lib/web/web-dependencies.js';
import { publicHandler } from '../../lib/web/web-handler.js';
import { safeReturnPath } from '../../lib/web/web-request.js';

export const handler = publicHandler(async (request) => {
  const started = await signInUseCase().start(safeReturnPath(request.query.returnTo));
  const cookie = setCookie(LOGIN_COOKIE, started.loginSecret, { path: '/settings/auth', maxAgeSeconds: started.maxAgeSeconds, secure: webSettings().secure });
  return { kind: 'redirect', location: started.authorizationUrl, cookies: [cookie] };
});
