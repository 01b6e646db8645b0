/**
 * Workspaces and connected accounts: each workspace with a rename form and its accounts (platform,
 * name, handle, type, tokenHealth with what it means, Disconnect), and the form that creates one.
 * ACCOUNT_ACTIONS lets the connect pages add their buttons (Connect, Reconnect) without editing
 * this layout.
 */
import type { Account } from '../../domain/model.js';
import { TOKEN_HEALTH_MEANING, type WorkspaceWithAccounts } from '../../use-cases/settings/workspaces.js';
import { html, type Html } from '../html.js';
import { formatTime } from './format.js';
import { csrfField } from './layout.js';

const HEALTH_BADGE: Record<Account['tokenHealth'], string> = { healthy: 'ok', expiring: 'warn', needs_reauth: 'bad', refresh_failed: 'bad' };

/** Extra actions per account (the connect pages add Reconnect for needs_reauth / refresh_failed). */
export const ACCOUNT_ACTIONS: Array<(account: Account, csrfToken: string) => Html | ''> = [];
/** Extra actions per workspace (the connect pages add "Connect X", "Connect LinkedIn"). */
export const WORKSPACE_ACTIONS: Array<(workspaceId: string, csrfToken: string) => Html | ''> = [];

function accountRow(account: Account, csrfToken: string): Html {
  return html`<tr>
  <td data-label="Account"><strong>${account.name}</strong><br><span class="muted">${account.handle}</span></td>
  <td data-label="Platform">${account.platform}${account.accountType === 'organization' ? html` <span class="muted">(page)</span>` : ''}</td>
  <td data-label="Connection"><span class="badge ${HEALTH_BADGE[account.tokenHealth]}">${account.tokenHealth}</span><br><span class="muted">${TOKEN_HEALTH_MEANING[account.tokenHealth]}</span></td>
  <td data-label="Connected">${formatTime(account.connectedAt)}<br><span class="muted">id <code>${account.id}</code></span></td>
  <td><div class="actions">${ACCOUNT_ACTIONS.map((action) => action(account, csrfToken))}<a class="button danger" href="/settings/accounts/${account.id}/disconnect">Disconnect…</a></div></td>
</tr>`;
}

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
    ? html`<p class="muted">No accounts connected to this workspace yet.</p>`
    : html`<div class="table-wrap"><table class="stack"><thead><tr><th scope="col">Account</th><th scope="col">Platform</th><th scope="col">Connection</th><th scope="col">Connected</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
      <tbody>${workspace.accounts.map((account) => accountRow(account, csrfToken))}</tbody></table></div>`}
  <div class="actions">${WORKSPACE_ACTIONS.map((action) => action(workspace.id, csrfToken))}</div>
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
  <form method="post" action="/settings/accounts/${account.id}/disconnect" class="actions">${csrfField(csrfToken)}<button type="submit" class="danger">Disconnect account</button><a class="button" href="/settings/workspaces">Cancel</a></form>
</section>`;
}
