/**
 * Importing a file into the media library from a URL (beyond-v2.md "Media through the API"): what
 * a `sourceUrl` may be, the bounds of the fetch, the type read from the bytes themselves, and when
 * the sweeper looks again at a media that is not settled yet.
 *
 * The fetch itself is lib/egress/media-fetcher.ts; the worker lib/use-cases/media-import.ts.
 */
import { UPLOAD_RULES, type UploadRule } from './media-upload-rules.js';

/** Redirects followed at most, each one checked as the first address was. */
export const MAX_IMPORT_REDIRECTS = 3;
/** The whole fetch (connection, redirects and body) stops after this. */
export const IMPORT_TIMEOUT_MS = 60_000;
export const MAX_SOURCE_URL_LENGTH = 2048;
/** The largest file any type takes: a body is never read past it before its type is known. */
export const MAX_IMPORT_BYTES = Math.max(...UPLOAD_RULES.map((rule) => rule.maxBytes));

/**
 * How long a worker holds an import it claimed before the sweeper may hand it to another: the
 * fetch's 60 s, the checks and the move, with room for a slow hour. A worker killed mid-import
 * leaves the media `processing` until then, never longer.
 */
export const IMPORT_LEASE_SECONDS = 180;
/** Claims of one import at most: a file whose worker dies each time (say, out of memory) fails instead of looping. */
export const MAX_IMPORT_CLAIMS = 3;
/**
 * An upload session's URL lives an hour (API_UPLOAD_EXPIRES_SECONDS); a PUT started at its last
 * second may still be arriving, so the sweeper fails a `pending` media only this long after.
 */
export const UPLOAD_ABANDONED_AFTER_SECONDS = 3600 + 15 * 60;

export type SourceUrlProblem = { problem: string };

/**
 * The URL an import may fetch: https, or (local stack only, `allowLoopback`) http on 127.0.0.1 so a
 * test can serve the file itself, as webhook URLs may. No credentials in it. Whether its host is
 * public is decided when it is connected to (lib/egress/public-address.ts).
 */
export function checkSourceUrl(value: unknown, options: { allowLoopback: boolean }): URL | SourceUrlProblem {
  if (typeof value !== 'string' || value === '') return { problem: 'sourceUrl must be the https URL of the file to import.' };
  if (value.length > MAX_SOURCE_URL_LENGTH) return { problem: `sourceUrl is at most ${MAX_SOURCE_URL_LENGTH} characters.` };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { problem: 'sourceUrl is not a valid URL.' };
  }
  const loopback = options.allowLoopback && url.protocol === 'http:' && url.hostname === '127.0.0.1';
  if (url.protocol !== 'https:' && !loopback) return { problem: 'sourceUrl must be an https URL.' };
  if (url.username !== '' || url.password !== '') return { problem: 'sourceUrl must not carry a user name or password.' };
  return url;
}

/** The file's name when the caller gives none: the URL path's last segment, else "import". */
export function fileNameFromUrl(url: URL): string {
  const last = url.pathname.split('/').filter((part) => part !== '').pop();
  let name = '';
  try {
    name = last ? decodeURIComponent(last) : '';
  } catch {
    name = last ?? '';
  }
  name = name.replace(/[\u0000-\u001f\u007f]/g, '').trim().slice(0, 300);
  return name === '' ? 'import' : name;
}

/** The library's type of a file by its first bytes (SNIFF_BYTES of them), whatever the server said it was. */
export function ruleByContent(head: Uint8Array): UploadRule | null {
  return UPLOAD_RULES.find((rule) => rule.matches(head)) ?? null;
}

/**
 * The index key of a media not settled yet: its time to be looked at by the sweeper (an import's
 * lease end, an upload's abandonment), then its id, so one Query reads the due ones in order.
 */
export function mediaDueSortKey(dueAt: Date, mediaId: string): string {
  return `${dueAt.toISOString()}#${mediaId}`;
}
