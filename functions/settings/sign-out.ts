/**
 * POST /settings/sign-out: ends the server-side session, clears its cookie, and answers a page
 * rendered signed out that sends the browser on through the provider's logout (ending the
 * provider's session too) back to settings, where it meets the sign-in. Not a redirect: CSP
 * form-action follows a form's redirects, and every page's sign-out form would then have to name
 * the provider's origin.
 *
 * With `others=on` (the Overview's "Sign out of other browsers") it ends every OTHER session of
 * the user instead, keeps this one, and goes back to the Overview saying how many ended.
 */
import { clearCookie, SESSION_COOKIE } from '../../lib/web/cookies.js';
import { END_OTHER_SESSIONS_FIELD } from '../../lib/web/pages/overview-page.js';
import { signInUseCase } from '../../lib/web/sign-in-dependencies.js';
import { webSettings } from '../../lib/web/web-dependencies.js';
import { signedInHandler, signedOutPage } from '../../lib/web/web-handler.js';

export const handler = signedInHandler(async (request, signedIn) => {
  if (request.form[END_OTHER_SESSIONS_FIELD] === 'on') {
    const ended = await signInUseCase().endOtherSessions(signedIn.user.id, signedIn.sessionKey);
    return { kind: 'redirect', location: `/settings?otherSessionsEnded=${ended}` };
  }
  const { providerLogoutUrl } = await signInUseCase().signOut(signedIn.sessionKey);
  return { ...signedOutPage(providerLogoutUrl), cookies: [clearCookie(SESSION_COOKIE, { path: '/settings', secure: webSettings().secure })] };
});
