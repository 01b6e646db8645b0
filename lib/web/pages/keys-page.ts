/** API keys: the list with its create form, the one-time display of a new key, and the revoke confirmation. */
import { MAX_ACTIVE_API_KEYS, type ApiKeyRow } from '../../use-cases/settings/api-keys.js';
import { html, type Html } from '../html.js';
import { formatTime } from './format.js';
import { apiAccessCard, type ServiceAddresses } from './get-started.js';
import { csrfField } from './layout.js';

function status(key: ApiKeyRow): Html {
  return key.revokedAt ? html`<span class="badge muted">Revoked ${formatTime(key.revokedAt)}</span>` : html`<span class="badge ok">Active</span>`;
}

/** `notice`: what was just done; `error`: why what was asked was not done. */
export function keysPage(keys: readonly ApiKeyRow[], csrfToken: string, notice?: string, error?: string): Html {
  const rows = keys.map(
    (key) => html`<tr>
  <td data-label="Key"><code>ak_${key.id}_…</code></td>
  <td data-label="Created">${formatTime(key.createdAt)}</td>
  <td data-label="Last used">${key.lastUsedAt ? formatTime(key.lastUsedAt) : 'Never'}</td>
  <td data-label="Status">${status(key)}</td>
  <td>${key.revokedAt ? '' : html`<a class="button danger" href="/settings/keys/${key.id}/revoke">Revoke…</a>`}</td>
</tr>`,
  );
  return html`${notice ? html`<p class="notice ok" role="status">${notice}</p>` : ''}${error ? html`<p class="notice error" role="alert">${error}</p>` : ''}
<section class="card">
  <h2>Create a key</h2>
  <p>Keys are for your servers. Each key carries all four scopes (read, write, publish, media) and is shown once.</p>
  <p class="muted">You can have up to ${MAX_ACTIVE_API_KEYS} active keys; revoking a key frees its place.</p>
  <form method="post" action="/settings/keys">${csrfField(csrfToken)}<button type="submit" class="primary">Create API key</button></form>
</section>
<h2>Your keys</h2>
${keys.length === 0
  ? html`<p class="muted">No keys yet: <strong>Create API key</strong> above makes your first.</p>`
  : html`<div class="table-wrap"><table class="stack"><thead><tr><th scope="col">Key</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Status</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead><tbody>${rows}</tbody></table></div>`}
<p class="muted">"Last used" is recorded at most once an hour per key, so it can be up to an hour behind.</p>`;
}

export function newKeyPage(created: { id: string; key: string }, addresses: ServiceAddresses): Html {
  return html`<div class="notice warn" role="alert"><strong>Copy this key now.</strong> It is shown only this once: we keep only a hash of it and cannot show it again. Store it where your server reads its secrets, never in code or a URL.</div>
<section class="card">
  <label for="new-key">Your new API key</label>
  <textarea id="new-key" class="secret" rows="2" readonly spellcheck="false" autocomplete="off">${created.key}</textarea>
  <div class="actions"><button type="button" class="primary" data-copy-target="new-key" hidden>Copy key</button><span id="new-key-status" role="status" aria-live="polite"></span></div>
  <p>Use it as <code>Authorization: Bearer &lt;key&gt;</code>. Its public id is <code>${created.id}</code>.</p>
</section>
${apiAccessCard(addresses, created.key)}
<p><a class="button" href="/settings/keys">Done, back to keys</a></p>`;
}

export function revokeKeyPage(key: ApiKeyRow, csrfToken: string): Html {
  return html`<section class="card">
  <p>Revoke the key <code>ak_${key.id}_…</code> created ${formatTime(key.createdAt)}?</p>
  <p>Requests with it are refused with <code>401 api_key_revoked</code> from now on (a server that used it in the last minute may accept it for up to a minute more). This cannot be undone.</p>
  <form method="post" action="/settings/keys/${key.id}/revoke" class="actions">${csrfField(csrfToken)}<button type="submit" class="danger">Revoke key</button><a class="button" href="/settings/keys">Cancel</a></form>
</section>`;
}
