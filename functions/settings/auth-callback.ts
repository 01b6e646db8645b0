/**
 * GET /settings/auth/callback: the provider sends the browser back here with a code (or an
 * error). The sign-in transaction named by the sp_login cookie is used up, the code exchanged
 * and checked, and a new session cookie set.
 */
import { html } from '../../lib/web/html.js';
import { clearCookie, LOGIN_COOKIE, readCookie, SESSION_COOKIE, setCookie } from '../../lib/web/cookies.js';
import { signInUseCase } from '../../lib/web/sign-in-dependencies.js';
import { webSettings } from '../../lib/web/web-dependencies.js';
import { publicHandler } from '../../lib/web/web-handler.js';
import { SignInExpiredError } from '../../lib/use-cases/settings/sign-in.js';

export const handler = publicHandler(async (request) => {
  const settings = webSettings();
  const clearLogin = clearCookie(LOGIN_COOKIE, { path: '/settings/auth', secure: settings.secure });
  const callbackUrl = new URL(request.path, settings.origin);
  for (const [name, value] of Object.entries(request.query)) callbackUrl.searchParams.set(name, value);
  try {
    const done = await signInUseCase().complete(readCookie(request.cookies, LOGIN_COOKIE), callbackUrl);
    const session = setCookie(SESSION_COOKIE, done.sessionSecret, { path: '/settings', maxAgeSeconds: done.maxAgeSeconds, secure: settings.secure });
    return { kind: 'redirect', location: done.returnTo, cookies: [clearLogin, session] };
  } catch (error) {
    if (!(error instanceof SignInExpiredError)) throw error;
    return {
      kind: 'page',
      status: 400,
      title: 'Sign-in expired',
      body: html`<p class="notice error" role="alert">This sign-in expired or was already used. Please start again.</p><p><a class="button primary" href="/settings/sign-in">Sign in</a></p>`,
      cookies: [clearLogin],
    };
  }
});
