/**
 * Workspaces: each with a rename form, how many accounts it has and the link to connect or manage
 * them on the one page for accounts (accounts-page.ts), and the form that creates one. The
 * disconnect confirmation lives here too and goes back to that page.
 */
import type { Account } from '../../domain/model.js';
import type { WorkspaceWithAccounts } from '../../use-cases/settings/workspaces.js';
import { html, type Html } from '../html.js';
import { csrfField } from './layout.js';

export function workspacesPage(workspaces: readonly WorkspaceWithAccounts[], csrfToken: string, notice?: { text: string; error?: boolean }): Html {
  return html`${notice ? html`<p class="notice ${notice.error ? 'error' : 'ok'}" role="${notice.error ? 'alert' : 'status'}">${notice.text}</p>` : ''}
${workspaces.map(
  (workspace) => html`<section class="card" aria-labelledby="ws-${workspace.id}">
  <h2 id="ws-${workspace.id}">${workspace.name}</h2>
  <p class="muted">Workspace id <code>${workspace.id}</code> (the <code>workspaceId</code> of the API)</p>
  <form class="inline-form" method="post" action="/settings/workspaces/${workspace.id}/rename">${csrfField(csrfToken)}
    <div><label for="name-${workspace.id}">Name</label><input id="name-${workspace.id}" name="name" type="text" required maxlength="100" value="${workspace.name}"></div>
    <button type="submit">Rename</button>
  </form>
  <h3>Connected accounts</h3>
  ${workspace.accounts.length === 0
    ? html`<p>No account connected to this workspace yet. <a href="/settings/accounts#ws-${workspace.id}">Connect one</a></p>`
    : html`<p>${workspace.accounts.map((account) => account.name).join(', ')}. <a href="/settings/accounts#ws-${workspace.id}">Connect or manage accounts</a></p>`}
</section>`,
)}
<section class="card">
  <h2>New workspace</h2>
  <form class="inline-form" method="post" action="/settings/workspaces">${csrfField(csrfToken)}
    <div><label for="new-workspace">Name</label><input id="new-workspace" name="name" type="text" required maxlength="100"></div>
    <button type="submit" class="primary">Create workspace</button>
  </form>
</section>`;
}

export function disconnectPage(account: Account, csrfToken: string): Html {
  return html`<section class="card">
  <p>Disconnect <strong>${account.name}</strong> (${account.platform}, ${account.handle})?</p>
  <p>Its stored tokens are deleted. Posts already scheduled to it will fail when they are due, and the API no longer lists it. You can connect it again later.</p>
  <form method="post" action="/settings/accounts/${account.id}/disconnect" class="actions">${csrfField(csrfToken)}<button type="submit" class="danger">Disconnect account</button><a class="button" href="/settings/accounts">Cancel</a></form>
</section>`;
}
