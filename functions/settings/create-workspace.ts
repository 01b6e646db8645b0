/** POST /settings/workspaces: creates a workspace; a bad name shows the page again with the reason. */
import { SettingsInputError } from '../../lib/use-cases/settings/workspaces.js';
import { workspacesPage } from '../../lib/web/pages/workspaces-page.js';
import { manageWorkspaces } from '../../lib/web/settings-dependencies.js';
import { signedInHandler } from '../../lib/web/web-handler.js';

export const handler = signedInHandler(async (request, signedIn) => {
  try {
    await manageWorkspaces().create(signedIn.caller, request.form.name);
    return { kind: 'redirect', location: '/settings/workspaces?done=created' };
  } catch (error) {
    if (!(error instanceof SettingsInputError)) throw error;
    const workspaces = await manageWorkspaces().list(signedIn.caller);
    return { kind: 'page', status: 400, title: 'Workspaces', body: workspacesPage(workspaces, signedIn.session.csrfToken, { text: error.message, error: true }) };
  }
});
