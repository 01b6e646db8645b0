/**
 * Posts: the caller's posts newest first (the API's list), filtered by status, each with its
 * account, campaign, schedule, a failed post's error message and advice, the link to the live
 * post, a Cancel button on scheduled posts, Send now on drafts and Retry on failed posts whose
 * error is retryable (POSTs with the CSRF token, like Cancel). Pages follow the API's signed cursor.
 * A native format (docs/native-formats.md) shows beside the text: a thread's further parts with a
 * link to each once live, and the first comment's own state (the post's status never depends on it).
 */
import type { Account } from '../../domain/model.js';
import { POST_STATUSES } from '../../domain/model.js';
import { linkedinRendering } from '../../domain/linkedin-markup.js';
import type { PostView } from '../../domain/views/post-view.js';
import { html, type Html } from '../html.js';
import { formatTime } from './format.js';
import { csrfField } from './layout.js';

const STATUS_BADGE: Record<string, string> = { draft: 'muted', scheduled: 'warn', published: 'ok', failed: 'bad' };

function excerpt(text: string): string {
  return text.length > 140 ? `${text.slice(0, 140)}…` : text;
}

/** Only http(s) links are rendered as links: a stored URL can never become `javascript:`. */
function safeLink(url: string | null): string | null {
  return url && /^https?:\/\//i.test(url) ? url : null;
}

const FORMAT_LABEL: Record<string, string> = { thread: 'Thread', poll: 'Poll', document: 'Document' };
const COMMENT_BADGE: Record<string, string> = { pending: 'warn', published: 'ok', failed: 'bad' };

/** The format, a thread's further parts (part 1 is the post itself) and the first comment; nothing for a text post without one. */
function formatDetails(post: PostView): Html | string {
  const parts =
    post.threadParts.length === 0
      ? ''
      : html`<ol class="thread-parts" start="2">${post.threadParts.map((part, index) => {
          const link = safeLink(part.publishedUrl);
          return html`<li>${link ? html`<a href="${link}" rel="noopener noreferrer" target="_blank">Part ${index + 2} live</a>` : html`<span class="muted">Part ${index + 2} not live yet</span>`}</li>`;
        })}</ol>`;
  const comment = post.firstComment;
  const commentLine =
    comment === null
      ? ''
      : html`<p class="first-comment">First comment: <span class="badge ${COMMENT_BADGE[comment.status] ?? 'muted'}">${comment.status}</span>${comment.error ? html` <span class="error-text">${comment.error.message} ${comment.error.advice}</span>` : ''}</p>`;
  const label = FORMAT_LABEL[post.format];
  if (!label && parts === '' && commentLine === '') return '';
  const title = post.format === 'thread' ? `Thread of ${post.threadParts.length + 1} parts` : label;
  return html`<div class="post-format" data-format="${post.format}">${title ? html`<span class="muted">${title}</span>` : ''}${parts}${commentLine}</div>`;
}

/** A LinkedIn post with hashtags or mentions says how it renders there (lib/domain/linkedin-markup.ts); nothing otherwise. */
function linkedinNote(post: PostView): Html | string {
  if (post.platform !== 'linkedin') return '';
  const rendering = linkedinRendering(post.text);
  if (rendering.hashtags.length === 0 && rendering.mentions.length === 0) return '';
  return html`<p class="linkedin-rendering muted">On LinkedIn: ${rendering.hashtags.length > 0 ? html`hashtags ${rendering.hashtags.map((tag) => `#${tag}`).join(' ')}` : ''}${rendering.hashtags.length > 0 && rendering.mentions.length > 0 ? '; ' : ''}${rendering.mentions.length > 0 ? html`mentions ${rendering.mentions.map((mention) => mention.name).join(', ')}` : ''}. Readers see: “${excerpt(rendering.displayText)}”</p>`;
}

function postRow(post: PostView, account: Account | undefined, csrfToken: string): Html {
  const live = safeLink(post.publishedUrl);
  // The row's id is the post id: an assistant links each post it creates to /settings/posts#<id>.
  return html`<tr id="${post.id}">
  <td data-label="Post">${post.text === '' ? html`<span class="muted">(no text)</span>` : excerpt(post.text)}${post.mediaUrls.length > 0 ? html`<br><span class="muted">${post.mediaUrls.length} media</span>` : ''}
    ${linkedinNote(post)}
    ${formatDetails(post)}
    ${post.error ? html`<p class="error-text"><strong>${post.error.message}</strong><br>${post.error.advice}</p>` : ''}</td>
  <td data-label="Account">${account ? html`${account.name}<br><span class="muted">${post.platform} ${account.handle}</span>` : html`${post.platform}<br><span class="muted">${post.accountId}</span>`}</td>
  <td data-label="Status"><span class="badge ${STATUS_BADGE[post.status] ?? 'muted'}">${post.status}</span></td>
  <td data-label="When">${post.status === 'published' ? html`Published ${formatTime(post.publishedAt)}` : html`${post.status === 'draft' ? 'Saved' : 'Due'} ${formatTime(post.scheduledFor)}`}</td>
  <td data-label="Campaign"><code>${post.campaignId}</code></td>
  <td><div class="actions">${live ? html`<a href="${live}" rel="noopener noreferrer" target="_blank">View live post</a>` : ''}${post.status === 'published' ? html`<a href="/settings/posts/${post.id}/metrics">Metrics</a>` : ''}
    ${post.status === 'scheduled'
      ? html`<form method="post" action="/settings/posts/${post.id}/cancel">${csrfField(csrfToken)}<button type="submit">Cancel</button></form>`
      : ''}${post.status === 'draft'
      ? html`<form method="post" action="/settings/posts/${post.id}/send">${csrfField(csrfToken)}<button type="submit">Send now</button></form>`
      : ''}${post.status === 'failed' && post.error?.retryable === true
      ? html`<form method="post" action="/settings/posts/${post.id}/retry">${csrfField(csrfToken)}<button type="submit">Retry</button></form>`
      : ''}</div></td>
</tr>`;
}

export interface PostsPageInput {
  posts: readonly PostView[];
  accounts: ReadonlyMap<string, Account>;
  status: string | null;
  nextCursor: string | null;
  csrfToken: string;
  notice?: { text: string; error?: boolean };
}

export function postsPage(input: PostsPageInput): Html {
  const filter = (status: string | null, label: string) =>
    html`<a href="/settings/posts${status ? `?status=${status}` : ''}"${input.status === status ? html` aria-current="page"` : ''}>${label}</a>`;
  const next = input.nextCursor
    ? `/settings/posts?${new URLSearchParams({ ...(input.status ? { status: input.status } : {}), cursor: input.nextCursor }).toString()}`
    : null;
  return html`${input.notice ? html`<p class="notice ${input.notice.error ? 'error' : 'ok'}" role="${input.notice.error ? 'alert' : 'status'}">${input.notice.text}</p>` : ''}
<nav class="filters" aria-label="Filter by status">${filter(null, 'All')}${POST_STATUSES.map((status) => filter(status, status[0]!.toUpperCase() + status.slice(1)))}</nav>
${input.posts.length === 0
  ? html`<p class="muted">No posts${input.status ? html` with status ${input.status}` : ''} yet. Posts are created through the API (<a href="/docs#/posts/createposts"><code>POST /api/v1/posts</code></a>) with a key from <a href="/settings/keys">API keys</a>.</p>`
  : html`<div class="table-wrap"><table class="stack"><thead><tr><th scope="col">Post</th><th scope="col">Account</th><th scope="col">Status</th><th scope="col">When</th><th scope="col">Campaign</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
    <tbody>${input.posts.map((post) => postRow(post, input.accounts.get(post.accountId), input.csrfToken))}</tbody></table></div>`}
${next ? html`<p><a class="button" href="${next}">Older posts</a></p>` : ''}`;
}
