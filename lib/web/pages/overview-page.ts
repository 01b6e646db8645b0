/**
 * The Overview: where a new user is on the way to a first post (make a key, connect an account,
 * upload media, send a post: each done or not, each with its link), how to call the API, then the
 * plan and allowance and a card per section with its count and where to go.
 */
import type { Overview } from '../../use-cases/settings/overview.js';
import { html, type Html } from '../html.js';
import { formatCount, formatTime } from './format.js';
import { csrfField } from './layout.js';
import { apiAccessCard, API_REFERENCE_PATH, type ServiceAddresses } from './get-started.js';

interface Step {
  done: boolean;
  title: string;
  href: string;
  action: string;
  hint: string;
}

function steps(overview: Overview): Step[] {
  return [
    { done: overview.activeKeys > 0, title: 'Make an API key', href: '/settings/keys', action: 'API keys', hint: 'Your server sends it with every request.' },
    { done: overview.accounts > 0, title: 'Connect an account', href: '/settings/accounts', action: 'Connected accounts', hint: 'X or LinkedIn: where your posts go.' },
    { done: overview.hasMedia, title: 'Upload media', href: '/settings/media', action: 'Media library', hint: 'Optional: images and videos for your posts.' },
    {
      done: overview.posts.count > 0,
      title: 'Send a first post',
      href: `${API_REFERENCE_PATH}#/posts/createposts`,
      action: 'How to create a post',
      hint: 'POST /posts with your key; its outcome shows under Posts.',
    },
  ];
}

function path(overview: Overview): Html {
  const all = steps(overview);
  const done = all.filter((step) => step.done).length;
  return html`<section class="card" aria-labelledby="path-title">
<h2 id="path-title">Your first post</h2>
<p class="muted">${done} of ${all.length} steps done.</p>
<ol class="path">${all.map(
    (step) => html`<li class="${step.done ? 'done' : 'todo'}">
<span class="badge ${step.done ? 'ok' : 'muted'}">${step.done ? 'Done' : 'To do'}</span>
<span class="step"><strong>${step.title}</strong> <span class="muted">${step.hint}</span><br><a href="${step.href}">${step.action}</a></span></li>`,
  )}</ol>
</section>`;
}


/** The form that ends the person's other sessions (functions/settings/sign-out.ts, `others`). */
export const END_OTHER_SESSIONS_FIELD = 'others';

export function overviewPage(overview: Overview, addresses: ServiceAddresses, session: { csrfToken: string; otherSessionsEnded: number | null }): Html {
  const ended =
    session.otherSessionsEnded === null
      ? ''
      : html`<p class="notice" role="status">Signed out of ${formatCount(session.otherSessionsEnded)} other browser${session.otherSessionsEnded === 1 ? '' : 's'}.</p>`;
  const percent = overview.monthlyPostAllowance === 0 ? 100 : Math.min(100, Math.round((overview.allowanceUsed / overview.monthlyPostAllowance) * 100));
  const posts = overview.posts.capped ? `${formatCount(overview.posts.count)}+` : formatCount(overview.posts.count);
  return html`${path(overview)}
${apiAccessCard(addresses)}
<section class="card plan" aria-labelledby="plan-title">
  <h2 id="plan-title">Plan</h2>
  <p>${overview.active ? html`<span class="badge ok">Active</span>` : html`<span class="badge bad">Inactive</span>`}
     ${formatCount(overview.monthlyPostAllowance)} posts per month</p>
  <p><strong>${formatCount(overview.allowanceUsed)}</strong> of ${formatCount(overview.monthlyPostAllowance)} used this cycle; resets ${formatTime(overview.cycleResetsAt)} (the first of a month, midnight UTC).</p>
  <meter min="0" max="100" value="${percent}" aria-label="Allowance used">${percent}%</meter>
  ${overview.active ? '' : html`<p class="notice error">Your subscription is inactive: API requests are refused with subscription_inactive.</p>`}
</section>
<div class="cards">
  <section class="card"><h2>API keys</h2><p class="figure">${formatCount(overview.activeKeys)}</p><p>active</p><a href="/settings/keys">Manage keys</a></section>
  <section class="card"><h2>Accounts</h2><p class="figure">${formatCount(overview.accounts)}</p><p>connected in ${formatCount(overview.workspaces)} workspace${overview.workspaces === 1 ? '' : 's'}</p><a href="/settings/accounts">Connect and manage accounts</a></section>
  <section class="card"><h2>Posts</h2><p class="figure">${posts}</p><p>in total</p><a href="/settings/posts">See posts</a></section>
</div>
<section class="card" aria-labelledby="sessions-title">
  <h2 id="sessions-title">Sessions</h2>
  ${ended}
  <p>A sign-in lasts 8 hours, or ends after 30 minutes without a page opened. After changing your password, or if you left settings open on another computer, sign out everywhere else:</p>
  <form method="post" action="/settings/sign-out">${csrfField(session.csrfToken)}<input type="hidden" name="${END_OTHER_SESSIONS_FIELD}" value="on"><button type="submit">Sign out of other browsers</button></form>
</section>`;
}
