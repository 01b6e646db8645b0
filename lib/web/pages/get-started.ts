/**
 * What a new user needs to reach the API from settings, shown on the Overview and on the new-key
 * page: the API base URL, the API reference (/docs, rendered from openapi.yaml) and a curl line
 * that works as shown, each with a copy button. All of it derives from the origin the settings
 * pages are served from, which on AWS and locally is also the API's (one HTTP API).
 */
import { html, type Html } from '../html.js';

/** functions/catalogue.ts API_BASE_PATH and the reference's path; lib does not import functions/. */
const API_BASE_PATH = '/api/v1';
export const API_REFERENCE_PATH = '/docs';

export interface ServiceAddresses {
  apiBaseUrl: string;
  referenceUrl: string;
  mcpUrl: string;
}

export function serviceAddresses(origin: string): ServiceAddresses {
  const base = origin.replace(/\/+$/, '');
  return { apiBaseUrl: `${base}${API_BASE_PATH}`, referenceUrl: `${base}${API_REFERENCE_PATH}`, mcpUrl: `${base}/mcp` };
}

/** A value to copy: read-only, selectable, with a copy button once the script runs; a long one wraps (a phone shows it whole). */
export function copyable(id: string, label: string, value: string, options: { long?: boolean } = {}): Html {
  const field = options.long
    ? html`<textarea id="${id}" class="code-value" rows="3" readonly spellcheck="false">${value}</textarea>`
    : html`<input type="text" id="${id}" class="code-value" value="${value}" readonly spellcheck="false">`;
  return html`<div class="copyable"><label for="${id}">${label}</label>
<div class="copy-row">${field}<button type="button" data-copy-target="${id}" hidden>Copy</button></div>
<span id="${id}-status" class="muted" role="status" aria-live="polite"></span></div>`;
}

/**
 * The curl line of GET /accounts (lists the accounts a post can go to): with the key itself on
 * the new-key page, else with $API_KEY for the reader's shell.
 */
export function curlLine(addresses: ServiceAddresses, key?: string): string {
  return `curl -s -H "Authorization: Bearer ${key ?? '$API_KEY'}" ${addresses.apiBaseUrl}/accounts`;
}

export function apiAccessCard(addresses: ServiceAddresses, key?: string): Html {
  return html`<section class="card" aria-labelledby="api-access-title">
<h2 id="api-access-title">Call the API</h2>
${copyable('api-base-url', 'API base URL', addresses.apiBaseUrl)}
${copyable('curl-line', key ? 'Try your key: list your connected accounts' : 'Try it: list your connected accounts', curlLine(addresses, key), { long: true })}
${key ? '' : html`<p class="muted">Set <code>API_KEY</code> to one of your keys first: <code>export API_KEY=ak_…</code></p>`}
<p><a href="${addresses.referenceUrl}">API reference</a>: every operation, its fields and its errors.</p>
</section>`;
}
