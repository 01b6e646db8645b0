/**
 * The media library: upload (choose the file: its type comes from the file, and it goes straight
 * to the media bucket with a presigned POST), and the files with a thumbnail (images through their media URL;
 * videos a placeholder), the URL to put in `media` with a copy button, and Delete behind a
 * disclosure. Works without JavaScript (the type is then chosen in a list before the file); the
 * script reads the type from the file, asks for the presigned POST and sends the file on.
 */
import { UPLOAD_RULES } from '../../domain/media-upload-rules.js';
import { ACCEPTED_IN_WORDS, limitInWords } from '../../use-cases/settings/media-library.js';
import { mediaStatus, type MediaItem, type MediaStatus } from '../../domain/model.js';
import { MAX_ALT_TEXT } from '../../use-cases/media-files.js';
import type { PresignedUpload } from '../../use-cases/ports/media-upload.js';
import { html, type Html } from '../html.js';
import { formatTime } from './format.js';
import { csrfField } from './layout.js';

export const MEDIA_NOTICES: Record<string, string> = {
  added: 'File added to your library. Copy its URL into the media field of a post.',
  deleted: 'File deleted from your library.',
  'alt-text': 'Alt text saved.',
  importing: 'Import started: the file is fetched in the background. Reload this page to see it become ready.',
};

const STATUS_WORDS: Record<MediaStatus, string> = {
  pending: 'Pending: waiting for the upload',
  processing: 'Processing: being imported',
  ready: 'Ready',
  failed: 'Failed',
};

const TYPE_LABELS: Record<string, string> = {
  'image/jpeg': 'JPEG image',
  'image/png': 'PNG image',
  'image/webp': 'WebP image (X only)',
  'image/gif': 'GIF image',
  'video/mp4': 'MP4 video',
  'application/pdf': 'PDF document (LinkedIn only)',
};

/** "12 pages" when the count was read from the file, nothing when unknown. */
function pages(item: MediaItem): string {
  const count = item.pageCount ?? null;
  return count === null ? '' : `, ${count} ${count === 1 ? 'page' : 'pages'}`;
}

function size(bytes: number): string {
  return bytes >= 1_000_000 ? `${(bytes / 1_000_000).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1000))} kB`;
}

function preview(item: MediaItem): Html {
  if (mediaStatus(item) !== 'ready' || item.url === '') return html`<span class="thumb video" aria-hidden="true">…</span>`;
  if (item.contentType.startsWith('image/')) return html`<img class="thumb" src="${item.url}" alt="" width="96" height="96" loading="lazy">`;
  if (item.contentType === 'application/pdf') return html`<span class="thumb video" aria-hidden="true">PDF</span>`;
  return html`<span class="thumb video" aria-hidden="true">▶</span>`;
}

/** What the API's media object says of the file (type, size, dimensions, duration, pages), once known. */
function facts(item: MediaItem): string {
  if (item.sizeBytes === 0 && mediaStatus(item) !== 'ready') return item.sourceUrl ? 'Type and size read once the file arrives' : '';
  const dimensions = item.width != null && item.height != null ? `, ${item.width} × ${item.height} px` : '';
  return `${TYPE_LABELS[item.contentType] ?? item.contentType}, ${size(item.sizeBytes)}${dimensions}${item.durationSeconds === null ? '' : `, ${item.durationSeconds} s`}${pages(item)}`;
}

function status(item: MediaItem): Html {
  const state = mediaStatus(item);
  return html`<span class="media-status" data-status="${state}">${STATUS_WORDS[state]}</span>${
    state === 'failed' && item.error ? html`<br><span class="media-error">${item.error.message} <span class="muted">(${item.error.code})</span></span>` : ''
  }${item.sourceUrl ? html`<br><span class="muted">from ${item.sourceUrl}</span>` : ''}`;
}

function row(item: MediaItem, csrf: string, index: number): Html {
  const urlId = `media-url-${index}`;
  const altId = `media-alt-${index}`;
  const ready = mediaStatus(item) === 'ready' && item.url !== '';
  return html`<tr data-media-id="${item.id}">
<td data-label="Preview">${preview(item)}</td>
<td data-label="Status">${status(item)}</td>
<td data-label="URL">${
    ready
      ? html`<label class="visually-hidden" for="${urlId}">Media URL</label>
<input type="text" id="${urlId}" class="media-url" value="${item.url}" readonly>
<button type="button" data-copy-target="${urlId}" hidden>Copy URL</button> <span id="${urlId}-status" role="status"></span>`
      : html`<span class="muted">Not yet</span>`
  }</td>
<td data-label="File">${item.fileName ?? ''}<br>${facts(item)}<br><span class="muted">added ${formatTime(item.createdAt)}</span>
<form method="post" action="/settings/media/alt-text" class="alt-text-form">${csrfField(csrf)}<input type="hidden" name="mediaId" value="${item.id}">
<label for="${altId}">Alt text</label><textarea id="${altId}" name="altText" rows="2" maxlength="${MAX_ALT_TEXT}" aria-describedby="${altId}-hint">${item.altText ?? ''}</textarea>
<span class="muted" id="${altId}-hint">Up to ${MAX_ALT_TEXT.toLocaleString('en')} characters; empty removes it.</span>
<button type="submit">Save alt text</button></form></td>
<td data-label="Actions"><details><summary>Delete…</summary>
<form method="post" action="/settings/media/delete">${csrfField(csrf)}<input type="hidden" name="mediaId" value="${item.id}">
<p>A file a draft or scheduled post uses cannot be deleted.</p><button type="submit" class="danger">Delete this file</button></form></details></td>
</tr>`;
}

export function mediaPage(input: { items: MediaItem[]; csrfToken: string; importToken: string; notice: string | null }): Html {
  return html`${input.notice ? html`<p class="notice ok" role="status">${input.notice}</p>` : ''}
<section class="card" aria-labelledby="upload-title"><h2 id="upload-title">Upload a file</h2>
<form method="post" action="/settings/media/upload">${csrfField(input.csrfToken)}<button type="submit" class="primary">Upload a file…</button></form>
<p class="muted">You can upload ${ACCEPTED_IN_WORDS}. Files go straight to storage; a video’s length and a PDF’s pages are read from the file. X takes videos up to 140 s, LinkedIn up to 30 minutes; a PDF (at most 300 pages) goes to LinkedIn as a document post.</p></section>
<section class="card" aria-labelledby="import-title"><h2 id="import-title">Import from a URL</h2>
<form method="post" action="/settings/media/import">${csrfField(input.csrfToken)}<input type="hidden" name="importToken" value="${input.importToken}">
<label for="sourceUrl">File URL (https)</label><input type="url" id="sourceUrl" name="sourceUrl" required>
<label for="importAltText">Alt text (optional)</label><textarea id="importAltText" name="altText" rows="2" maxlength="${MAX_ALT_TEXT}"></textarea>
<p><button type="submit" class="primary">Import</button></p></form>
<p class="muted">The file is fetched in the background and checked as an upload is: it shows as processing, then ready or failed with the reason.</p></section>
${
  input.items.length === 0
    ? html`<p class="muted">Your library is empty: <strong>Upload a file…</strong> above adds your first.</p>`
    : html`<div class="table-wrap"><table class="stack"><thead><tr><th>Preview</th><th>Status</th><th>URL (for <code>media</code>)</th><th>File and alt text</th><th>Actions</th></tr></thead>
<tbody>${input.items.map((item, index) => row(item, input.csrfToken, index))}</tbody></table></div>`
}`;
}

/**
 * Choose the file. With the script, the type comes from the file: it asks POST /settings/media/upload
 * for a presigned POST of that type (name and size included, so a wrong one is refused before any
 * byte is sent) and posts the file to storage. Without it, the list says the type and the next
 * page (uploadFormPage) takes the file.
 */
export function chooseFilePage(input: { csrfToken: string }): Html {
  return html`<section class="card"><h2>Choose the file</h2>
<form method="post" action="/settings/media/upload" class="upload-one-step" data-one-step>${csrfField(input.csrfToken)}
<div data-with-script hidden><label for="file">File</label>
<input type="file" id="file" accept="${UPLOAD_RULES.map((rule) => rule.contentType).join(',')}" aria-describedby="accepted"></div>
<div data-without-script><label for="contentType">Type of file</label><select id="contentType" name="contentType">
${UPLOAD_RULES.map((rule) => html`<option value="${rule.contentType}">${TYPE_LABELS[rule.contentType] ?? rule.contentType}</option>`)}
</select><p class="muted">Then choose the file on the next page.</p></div>
<p class="muted" id="accepted">You can upload ${ACCEPTED_IN_WORDS}.</p>
<p class="notice error upload-status" id="upload-status" role="alert"></p>
<p><button type="submit" class="primary">Upload</button> <a href="/settings/media">Cancel</a></p>
</form></section>`;
}

/** Without the script: the form that posts the file of the chosen type straight to the media bucket (the file field must come last). */
export function uploadFormPage(input: { upload: PresignedUpload; contentType: string }): Html {
  return html`<section class="card"><h2>Choose the ${TYPE_LABELS[input.contentType] ?? input.contentType}</h2>
<form method="post" action="${input.upload.url}" enctype="multipart/form-data" class="upload-form">
${Object.entries(input.upload.fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<label for="file">File (${limitInWords(input.contentType)})</label>
<input type="file" id="file" name="file" accept="${input.contentType}" required>
<p><button type="submit" class="primary">Upload</button> <a href="/settings/media">Cancel</a></p>
</form><p class="muted">This form is valid for 10 minutes.</p></section>`;
}

/** Step 3: back from storage; adding the file checks it (sent on at once when scripts run). */
export function uploadedPage(input: { objectKey: string; csrfToken: string }): Html {
  return html`<form method="post" action="/settings/media/register" data-autosubmit>${csrfField(input.csrfToken)}
<input type="hidden" name="key" value="${input.objectKey}">
<p class="notice">The file arrived. Add it to your library to check it and get its URL.</p>
<button type="submit" class="primary">Add to library</button></form>`;
}
