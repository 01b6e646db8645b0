/** POST /settings/workspaces/{id}/rename: renames the caller's own workspace; another user's id is a 404. */
import { SettingsInputError } from '../../lib/use-cases/settings/workspaces.js';
import { workspacesPage } from '../../lib/web/pages/workspaces-page.js';
import { manageWorkspaces, orNotFound } from '../../lib/web/settings-dependencies.js';
import { signedInHandler } from '../../lib/web/web-handler.js';

export const handler = signedInHandler(async (request, signedIn) => {
  try {
    await orNotFound('workspace', () => manageWorkspaces().rename(signedIn.caller, request.pathParameters.id ?? '', request.form.name));
    return { kind: 'redirect', location: '/settings/workspaces?done=renamed' };
  } catch (error) {
    if (!(error instanceof SettingsInputError)) throw error;
    const workspaces = await manageWorkspaces().list(signedIn.caller);
    return { kind: 'page', status: 400, title: 'Workspaces', body: workspacesPage(workspaces, signedIn.session.csrfToken, { text: error.message, error: true }) };
  }
});
