/**
 * Connected accounts: per workspace, its accounts with their connection health and what it means,
 * Reconnect where the health asks for it, Disconnect behind a disclosure (a second, deliberate
 * click, without JavaScript), and the three ways to connect one more: X, a LinkedIn member, the
 * LinkedIn pages the member administers. Every form is a POST with the CSRF field.
 */
import type { Account } from '../../domain/model.js';
import { TOKEN_HEALTH_MEANING, type WorkspaceAccounts } from '../../use-cases/settings/connected-accounts.js';
import { html, type Html } from '../html.js';
import { csrfField } from './layout.js';
import { formatTime } from './format.js';
import { X_MAX_TEXT_LENGTH, textLimitFor } from '../../domain/text-limits.js';

const PLATFORM_NAMES: Record<string, string> = { x: 'X', linkedin: 'LinkedIn' };

/** Fixed messages for the codes a redirect carries back here (the page never echoes free text). */
export const ACCOUNTS_NOTICES: Record<string, string> = {
  connected: 'Account connected.',
  connected_pages: 'LinkedIn pages connected.',
  reconnected: 'Account reconnected: it is healthy again.',
  updated: 'That account was connected already: its connection is renewed.',
  disconnected: 'Account disconnected and its tokens deleted. Its scheduled posts will fail when due.',
};

function healthBadge(account: Account): Html {
  const health = TOKEN_HEALTH_MEANING[account.tokenHealth];
  const tone = account.tokenHealth === 'healthy' ? 'ok' : account.tokenHealth === 'expiring' ? 'warn' : 'bad';
  // Only a connection that cannot be refreshed has an end to show (token-expiry.ts).
  const ends = account.tokenExpiresAt ? html`<br><span class="token-expires muted">Access ends ${formatTime(account.tokenExpiresAt)}</span>` : '';
  const limit = textLimitFor(account);
  const long = account.platform === 'x' && limit !== null && limit > X_MAX_TEXT_LENGTH ? html`<br><span class="text-limit muted">X Premium: posts up to ${limit.toLocaleString('en-US')} characters</span>` : '';
  return html`<span class="badge ${tone}">${health.label}</span> <span class="muted">${health.meaning}</span>${ends}${long}`;
}

function connectButton(csrf: string, workspaceId: string, kind: string, label: string, extra: Html | string = ''): Html {
  return html`<form method="post" action="/settings/accounts/connect">${csrfField(csrf)}
<input type="hidden" name="workspaceId" value="${workspaceId}"><input type="hidden" name="kind" value="${kind}">${extra}
<button type="submit" class="primary">${label}</button></form>`;
}

function reconnectKind(account: Account): string | null {
  if (account.platform === 'x') return 'x';
  if (account.platform === 'linkedin') return account.accountType === 'organization' ? 'linkedin_pages' : 'linkedin_member';
  return null;
}

function accountRow(account: Account, csrf: string): Html {
  const kind = reconnectKind(account);
  const reconnect =
    kind !== null && TOKEN_HEALTH_MEANING[account.tokenHealth].reconnect
      ? html`<form method="post" action="/settings/accounts/connect">${csrfField(csrf)}
<input type="hidden" name="accountId" value="${account.id}"><input type="hidden" name="kind" value="${kind}">
<button type="submit" class="primary">Reconnect</button></form>`
      : '';
  return html`<tr>
<td data-label="Account"><strong>${account.name}</strong><br><span class="muted">${account.handle}</span></td>
<td data-label="Platform">${PLATFORM_NAMES[account.platform] ?? account.platform}${account.accountType === 'organization' ? ' page' : ''}</td>
<td data-label="Connection">${healthBadge(account)}</td>
<td data-label="Id"><code>${account.id}</code><br><span class="muted">since ${formatTime(account.connectedAt)}</span></td>
<td data-label="Actions"><div class="actions">${reconnect}
<a class="button" href="/settings/accounts/${account.id}/queue">Posting times</a> <a class="button danger" href="/settings/accounts/${account.id}/disconnect">Disconnect…</a></div></td>
</tr>`;
}

export function accountsPage(input: { workspaces: WorkspaceAccounts[]; csrfToken: string; notice: string | null }): Html {
  const csrf = input.csrfToken;
  const sections = input.workspaces.map(
    ({ workspace, accounts }) => html`<section class="card" aria-labelledby="ws-${workspace.id}">
<h2 id="ws-${workspace.id}">${workspace.name} <span class="muted">(<code>${workspace.id}</code>)</span></h2>
${
  accounts.length === 0
    ? html`<p class="muted">No account connected to this workspace yet: connect one with a button below.</p>`
    : html`<div class="table-wrap"><table class="stack"><thead><tr><th>Account</th><th>Platform</th><th>Connection</th><th>Id (for <code>accounts</code>)</th><th>Actions</th></tr></thead>
<tbody>${accounts.map((account) => accountRow(account, csrf))}</tbody></table></div>`
}
<h3>Connect an account to ${workspace.name}</h3>
<div class="actions">
${connectButton(csrf, workspace.id, 'x', 'Connect X')}
${connectButton(csrf, workspace.id, 'linkedin_member', 'Connect LinkedIn (yourself)')}
${connectButton(csrf, workspace.id, 'linkedin_pages', 'Connect LinkedIn pages you administer')}
</div>
<p class="muted">You are sent to the platform to sign in and allow access, then come back here. Nothing is stored until you allow it.</p>
</section>`,
  );
  return html`${input.notice ? html`<p class="notice ok" role="status">${input.notice}</p>` : ''}
${input.workspaces.length === 0 ? html`<p class="notice">You have no workspace yet. <a href="/settings/workspaces">Create one</a> to connect accounts to it.</p>` : sections}`;
}
