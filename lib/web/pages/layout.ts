/**
 * The frame of every settings page: a skip link, the header with the navigation and the sign-out
 * button (a POST form carrying the CSRF token), the page's own content, and the stylesheet and
 * script from /settings/static. Pages work without JavaScript; the script only adds copy buttons.
 *
 * NAV is the one list of sections: a new page adds its entry here.
 */
import { CSRF_FIELD } from '../csrf.js';
import { html, type Html } from '../html.js';
import type { PersonTimeZone } from '../../use-cases/settings/time-zone.js';

export interface NavEntry {
  href: string;
  label: string;
}

export const NAV: readonly NavEntry[] = [
  { href: '/settings', label: 'Overview' },
  { href: '/settings/keys', label: 'API keys' },
  { href: '/settings/workspaces', label: 'Workspaces' },
  { href: '/settings/accounts', label: 'Accounts' },
  { href: '/settings/media', label: 'Media' },
  { href: '/settings/posts', label: 'Posts' },
  { href: '/settings/calendar', label: 'Calendar' },
  { href: '/settings/analytics', label: 'Analytics' },
  { href: '/settings/webhooks', label: 'Webhooks' },
  { href: '/settings/assistants', label: 'Assistants' },
];

export interface LayoutInput {
  title: string;
  body: Html;
  /** Current path: marks the active section. */
  path: string;
  /** Present when someone is signed in: the navigation and sign-out show. */
  signedIn?: { email: string; csrfToken: string; timeZone?: PersonTimeZone };
}

function isActive(entry: NavEntry, path: string): boolean {
  return entry.href === '/settings' ? path === '/settings' || path === '/settings/' : path === entry.href || path.startsWith(`${entry.href}/`);
}

/** A hidden CSRF field for a POST form of a signed-in page. */
export function csrfField(token: string): Html {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${token}">`;
}

export function layout(input: LayoutInput): Html {
  const nav = input.signedIn
    ? html`<nav aria-label="Settings sections"><ul>${NAV.map(
        (entry) => html`<li><a href="${entry.href}"${isActive(entry, input.path) ? html` aria-current="page"` : ''}>${entry.label}</a></li>`,
      )}</ul></nav>
      <form class="sign-out" method="post" action="/settings/sign-out">${csrfField(input.signedIn.csrfToken)}<span class="who">${input.signedIn.email}</span> <button type="submit" class="link">Sign out</button></form>
      ${input.signedIn.timeZone ? html`<p class="zone muted" data-time-zone-source="${input.signedIn.timeZone.source}">Times in ${input.signedIn.timeZone.timeZone} · <a href="/settings/calendar#time-zone">change</a></p>` : ''}`
    : '';
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${input.title} · Social Publishing settings</title>
<link rel="icon" href="/settings/static/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/settings/static/settings.css">
<script src="/settings/static/settings.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top"><a class="brand" href="/settings">Social Publishing</a>${nav}</header>
<main id="main" tabindex="-1">
<h1>${input.title}</h1>
${input.body}
</main>
</body>
</html>
`;
}

export function errorBody(message: string, signedIn: boolean): Html {
  return html`<p class="notice error" role="alert">${message}</p>
<p><a class="button" href="${signedIn ? '/settings' : '/settings/sign-in'}">${signedIn ? 'Back to the overview' : 'Sign in'}</a></p>`;
}
