/** GET /settings/workspaces: the user's workspaces with their connected accounts and tokenHealth. */
import { workspacesPage } from '../../lib/web/pages/workspaces-page.js';
import { manageWorkspaces } from '../../lib/web/settings-dependencies.js';
import { signedInHandler } from '../../lib/web/web-handler.js';

const NOTICES: Record<string, string> = {
  created: 'Workspace created.',
  renamed: 'Workspace renamed.',
  disconnected: 'Account disconnected.',
};

export const handler = signedInHandler(async (request, signedIn) => {
  const notice = NOTICES[request.query.done ?? ''];
  return {
    kind: 'page',
    title: 'Workspaces',
    body: workspacesPage(await manageWorkspaces().list(signedIn.caller), signedIn.session.csrfToken, notice ? { text: notice } : undefined),
  };
});
