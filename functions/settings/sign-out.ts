/** POST /settings/sign-out: ends the server-side session and clears its cookie. */
import { clearCookie, SESSION_COOKIE } from '../../lib/web/cookies.js';
import { signInUseCase } from '../../lib/web/sign-in-dependencies.js';
import { webSettings } from '../../lib/web/web-dependencies.js';
import { signedInHandler, signedOutPage } from '../../lib/web/web-handler.js';

export const handler = signedInHandler(async (_request, signedIn) => {
  await signInUseCase().signOut(signedIn.sessionKey);
  return { ...signedOutPage('You are signed out.'), cookies: [clearCookie(SESSION_COOKIE, { path: '/settings', secure: webSettings().secure })] };
});
