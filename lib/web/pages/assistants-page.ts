/**
 * The assistant server's pages in settings: the consent an assistant asks for (lib/oauth/
 * authorization.ts), and the Assistants page listing every grant with a revoke button. Every value
 * an assistant chose (its name, its home page, where it sends the person back) goes through
 * `html`'s escaping like any other data.
 */
import type { Grant, PendingAuthorization } from '../../oauth/model.js';
import { SCOPE_DESCRIPTIONS, type McpScope } from '../../oauth/scopes.js';
import { html, type Html } from '../html.js';
import { formatTime } from './format.js';
import { copyable } from './get-started.js';
import { csrfField } from './layout.js';

/** Where a redirect URI sends the browser, as the person should read it (the host, or the app's scheme). */
export function destinationOf(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.host === '' ? url.protocol : url.host;
}

/** The CSP form-action source that lets the consent form's answer redirect to the assistant. */
export function formActionSource(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.protocol === 'https:' || url.protocol === 'http:' ? url.origin : url.protocol;
}

export function consentPage(pending: PendingAuthorization, csrfToken: string): Html {
  const boxes = pending.scopes.map(
    (scope: McpScope) => html`<li><label><input type="checkbox" name="scope_${scope}" value="on" checked> <strong>${scope}</strong>: ${SCOPE_DESCRIPTIONS[scope]}</label></li>`,
  );
  const home = pending.clientUri ? html` (<a href="${pending.clientUri}" rel="noopener noreferrer" target="_blank">${pending.clientUri}</a>)` : '';
  const isDocument = /^https?:\/\//.test(pending.clientId);
  return html`<section class="card">
  <p><strong class="assistant-name">${pending.clientName}</strong>${home} asks to use your Social Publishing account.</p>
  <p class="muted">${isDocument ? html`It is identified by <code>${pending.clientId}</code>.` : 'This name was chosen by the assistant itself.'} After you answer, you go back to <code>${destinationOf(pending.redirectUri)}</code>.</p>
  <form method="post" action="/settings/assistants/consent">
    ${csrfField(csrfToken)}
    <input type="hidden" name="request" value="${pending.requestId}">
    <input type="hidden" name="form_token" value="${pending.formToken}">
    <fieldset>
      <legend>What it may do (untick what you do not want)</legend>
      <ul class="plain">${boxes}</ul>
    </fieldset>
    <p class="muted">It never sees your password or your API keys, and you can take access back at any time on the Assistants page.</p>
    <div class="actions">
      <button type="submit" name="decision" value="approve" class="primary">Allow</button>
      <button type="submit" name="decision" value="refuse">Refuse</button>
    </div>
  </form>
</section>`;
}

/**
 * How to add an assistant: the one URL, and where each client takes it. Claude's and ChatGPT's
 * connectors are called from their vendors' servers, so they need the service on a public https
 * address (deployed), never 127.0.0.1; the clients on the person's own machine reach either.
 */
function addAssistant(mcpUrl: string): Html {
  const local = /^http:\/\/(127\.0\.0\.1|localhost)[:/]/.test(mcpUrl);
  return html`<section class="card" aria-labelledby="add-assistant-title">
<h2 id="add-assistant-title">Add an assistant</h2>
<p>Give your MCP client this one address. It signs you in here through your browser and asks what it may do; it needs no API key.</p>
${copyable('mcp-url', 'MCP server URL', mcpUrl)}
<ul class="clients">
<li><strong>Claude</strong> (claude.ai, Claude Desktop): Settings, Connectors, <em>Add custom connector</em>, paste the URL. <strong>Claude Code</strong>: <code>claude mcp add --transport http social-publishing ${mcpUrl}</code></li>
<li><strong>ChatGPT</strong>: Settings, Apps &amp; Connectors, Advanced settings, turn on Developer mode, then <em>Create</em> a connector with the URL and OAuth.</li>
<li><strong>VS Code</strong>: the command <em>MCP: Add Server</em>, HTTP, paste the URL (or <code>"type": "http", "url"</code> in <code>.vscode/mcp.json</code>).</li>
<li><strong>Cursor</strong>: <code>"url"</code> of a server under <code>mcpServers</code> in <code>~/.cursor/mcp.json</code>.</li>
<li><strong>A client that only runs local servers</strong>: the command <code>npx mcp-remote ${mcpUrl}</code> bridges it.</li>
</ul>
${local ? html`<p class="notice">This address is on your own machine: Claude Code, VS Code, Cursor and mcp-remote reach it; Claude's and ChatGPT's connectors run on their servers and need the service deployed at a public https address.</p>` : ''}
</section>`;
}

export function assistantsPage(grants: readonly Grant[], csrfToken: string, notice?: string, mcpUrl?: string): Html {
  const rows = grants.map(
    (grant) => html`<tr>
  <td data-label="Assistant"><strong>${grant.clientName}</strong>${grant.clientUri ? html`<br><span class="muted">${grant.clientUri}</span>` : ''}</td>
  <td data-label="May">${grant.scopes.join(', ')}</td>
  <td data-label="Allowed">${formatTime(grant.createdAt)}</td>
  <td data-label="Status">${grant.revokedAt ? html`<span class="badge muted">Revoked ${formatTime(grant.revokedAt)}</span>` : html`<span class="badge ok">Active</span>`}</td>
  <td>${grant.revokedAt
    ? ''
    : html`<form method="post" action="/settings/assistants/${grant.grantId}/revoke">${csrfField(csrfToken)}<button type="submit" class="danger" aria-label="Revoke ${grant.clientName}">Revoke</button></form>`}</td>
</tr>`,
  );
  return html`${notice ? html`<p class="notice ok" role="status">${notice}</p>` : ''}
${mcpUrl ? addAssistant(mcpUrl) : ''}
<h2>Your assistants</h2>
<p>Assistants (MCP clients such as Claude or ChatGPT) you allowed to use your account. Revoking one stops it at once; it has to ask you again.</p>
${grants.length === 0
  ? html`<p class="muted">No assistant has access yet. <a href="#add-assistant-title">Add one</a> with the URL above.</p>`
  : html`<div class="table-wrap"><table class="stack"><thead><tr><th scope="col">Assistant</th><th scope="col">May</th><th scope="col">Allowed</th><th scope="col">Status</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead><tbody>${rows}</tbody></table></div>`}`;
}
