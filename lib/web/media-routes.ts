/**
 * The settings routes of the media library, shared by their one-per-route handler modules in
 * functions/settings/. A MediaLibraryError becomes a 400 page with its message and a way back.
 */
import { createHash } from 'node:crypto';
import { ENV, requireEnv } from '../config.js';
import { randomToken } from '../domain/ids.js';
import { ApiError } from '../domain/errors.js';
import type { MediaFiles } from '../use-cases/media-files.js';
import { INCOMING_PREFIX } from '../domain/media-library.js';
import { MediaLibraryError } from '../use-cases/settings/media-library.js';
import { mediaImageOrigin, mediaLibraryUseCase, mediaUploadOrigin } from './connect-dependencies.js';
import { html } from './html.js';
import { chooseFilePage, MEDIA_NOTICES, mediaPage, uploadedPage, uploadFormPage } from './pages/media-page.js';
import type { WebHandlerOptions } from './web-handler.js';
import type { SignedIn, WebRequest, WebResult } from './web-request.js';

async function orMediaError(run: () => Promise<WebResult>): Promise<WebResult> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof MediaLibraryError)) throw error;
    return {
      kind: 'page',
      status: error.code === 'media_not_found' ? 404 : 400,
      title: 'Media library',
      body: html`<p class="notice error" role="alert">${error.message}</p><p><a class="button" href="/settings/media">Back to the media library</a></p>`,
    };
  }
}

/** Thumbnails come from the media URL's origin. */
export const mediaPageOptions: WebHandlerOptions = {
  csp: {
    get imageOrigins() {
      return [mediaImageOrigin()];
    },
  },
};

/** The upload form posts to the media bucket (and S3 redirects back here, which 'self' covers). */
export const uploadFormOptions: WebHandlerOptions = {
  csp: {
    get formActionOrigins() {
      return [mediaUploadOrigin()];
    },
  },
};

export async function mediaRoute(request: WebRequest, signedIn: SignedIn): Promise<WebResult> {
  const items = await mediaLibraryUseCase().list(signedIn.user.id);
  return {
    kind: 'page',
    title: 'Media library',
    body: mediaPage({ items, csrfToken: signedIn.session.csrfToken, importToken: randomToken(24), notice: MEDIA_NOTICES[request.query.notice ?? ''] ?? null }),
  };
}

/** Sizes a browser may declare: a whole number of bytes, no more digits than the largest file could have. */
const SIZE_BYTES = /^[0-9]{1,12}$/;

/**
 * No type yet (the media page's button): the page to choose the file. A type (from the file, with
 * its name and size, when the script runs; from the list without it): the presigned POST.
 */
export async function prepareUploadRoute(request: WebRequest, signedIn: SignedIn): Promise<WebResult> {
  return orMediaError(async () => {
    const contentType = request.form.contentType;
    if (contentType === undefined) return { kind: 'page', title: 'Upload a file', body: chooseFilePage({ csrfToken: signedIn.session.csrfToken }) };
    const successRedirect = `${requireEnv(ENV.settingsBaseUrl).replace(/\/+$/, '')}/settings/media/uploaded`;
    const fileName = request.form.fileName;
    const sizeBytes = request.form.sizeBytes;
    const prepared = await mediaLibraryUseCase().prepare(signedIn.user.id, {
      contentType,
      successRedirect,
      ...(fileName ? { fileName } : {}),
      ...(sizeBytes !== undefined ? { sizeBytes: SIZE_BYTES.test(sizeBytes) ? Number(sizeBytes) : -1 } : {}),
    });
    return { kind: 'page', title: 'Upload a file', body: uploadFormPage({ upload: prepared.upload, contentType }) };
  });
}

export async function uploadedRoute(request: WebRequest, signedIn: SignedIn): Promise<WebResult> {
  const key = request.query.key ?? '';
  // Uploads land under the incoming prefix (lib/domain/media-library.ts), the caller's own folder in it.
  if (!key.startsWith(`${INCOMING_PREFIX}${signedIn.user.id}/`) || key.length > 400) {
    return { kind: 'page', status: 400, title: 'Media library', body: html`<p class="notice error" role="alert">That upload is not one of yours.</p><p><a class="button" href="/settings/media">Back to the media library</a></p>` };
  }
  return { kind: 'page', title: 'Upload received', body: uploadedPage({ objectKey: key, csrfToken: signedIn.session.csrfToken }) };
}

export async function registerUploadRoute(request: WebRequest, signedIn: SignedIn): Promise<WebResult> {
  return orMediaError(async () => {
    await mediaLibraryUseCase().register(signedIn.user.id, request.form.key ?? '');
    return { kind: 'redirect', location: '/settings/media?notice=added' };
  });
}

/**
 * The API's refusals (lib/use-cases/media-files.ts) as a page saying why, with the API's code: not
 * found (another customer's id too) 404, in use 409, bad input 400.
 */
async function orApiError(run: () => Promise<WebResult>): Promise<WebResult> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof ApiError) || error.status >= 500) throw error;
    return {
      kind: 'page',
      status: error.status,
      title: 'Media library',
      body: html`<p class="notice error" role="alert">${error.message} <span class="muted">(${error.code})</span></p><p><a class="button" href="/settings/media">Back to the media library</a></p>`,
    };
  }
}

/** The same use case as DELETE /api/v1/media/{id}: refused (media_in_use) while a draft or scheduled post uses the file. */
export function deleteMediaRoute(media: MediaFiles) {
  return (request: WebRequest, signedIn: SignedIn): Promise<WebResult> =>
    orApiError(async () => {
      await media.remove(signedIn.caller, request.form.mediaId ?? '');
      return { kind: 'redirect', location: '/settings/media?notice=deleted' };
    });
}

/** The same use case as PATCH /api/v1/media/{id}: an empty field removes the alt text. */
export function altTextRoute(media: MediaFiles) {
  return (request: WebRequest, signedIn: SignedIn): Promise<WebResult> =>
    orApiError(async () => {
      await media.update(signedIn.caller, request.form.mediaId ?? '', { altText: request.form.altText ?? null });
      return { kind: 'redirect', location: '/settings/media?notice=alt-text' };
    });
}

/** The same use case as POST /api/v1/media with sourceUrl: the file is fetched in the background. */
/**
 * The import form's idempotency key: its page's one-time token with what was typed, so a form sent
 * twice (a double click, a resend after a lost answer) starts one import, while the same page sent
 * again with another URL is another import. A form without a token (a page older than the token)
 * imports without a key.
 */
export function importIdempotencyKey(token: string | undefined, body: { sourceUrl: string; altText?: string }): string | undefined {
  if (token === undefined || !/^[A-Za-z0-9]{16,64}$/.test(token)) return undefined;
  const typed = createHash('sha256').update(JSON.stringify([token, body.sourceUrl, body.altText ?? ''])).digest('base64url');
  return `settings-import-${typed}`;
}

export function importMediaRoute(media: MediaFiles) {
  return (request: WebRequest, signedIn: SignedIn): Promise<WebResult> =>
    orApiError(async () => {
      const altText = request.form.altText ?? '';
      const body = { sourceUrl: request.form.sourceUrl ?? '', ...(altText !== '' ? { altText } : {}) };
      await media.create(signedIn.caller, body, { idempotencyKey: importIdempotencyKey(request.form.importToken, body) });
      return { kind: 'redirect', location: '/settings/media?notice=importing' };
    });
}
