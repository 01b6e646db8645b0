/**
 * POST /settings/sign-out: ends the server-side session, clears its cookie, and answers a page
 * rendered signed out that sends the browser on through the provider's logout (ending the
 * provider's session too) back to settings, where it meets the sign-in. Not a redirect: CSP
 * form-action follows a form's redirects, and every page's sign-out form would then have to name
 * the provider's origin.
 */
import { clearCookie, SESSION_COOKIE } from '../../lib/web/cookies.js';
import { signInUseCase } from '../../lib/web/sign-in-dependencies.js';
import { webSettings } from '../../lib/web/web-dependencies.js';
import { signedInHandler, signedOutPage } from '../../lib/web/web-handler.js';

export const handler = signedInHandler(async (_request, signedIn) => {
  const { providerLogoutUrl } = await signInUseCase().signOut(signedIn.sessionKey);
  return { ...signedOutPage(providerLogoutUrl), cookies: [clearCookie(SESSION_COOKIE, { path: '/settings', secure: webSettings().secure })] };
});
