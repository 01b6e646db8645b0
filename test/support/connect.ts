/**
 * What a person's browser does in the connect and upload flows, done with plain HTTP for the tests
 * below the browser: open a sandbox consent page and answer it, and post a file with a presigned
 * POST. test/browser does the same in Chromium.
 */
import { expect } from 'vitest';
import type { PresignedUpload } from '../../lib/use-cases/ports/media-upload.js';

/** Opens the consent page, picks an identity and Allow (or Cancel); returns the callback's URL. */
export async function answerConsent(authorizeUrl: string, identity: string, decision: 'allow' | 'deny' = 'allow'): Promise<URL> {
  const page = await fetch(authorizeUrl);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain(`value="${identity}"`);
  const url = new URL(authorizeUrl);
  const form = new URLSearchParams(url.searchParams);
  form.set('identity', identity);
  form.set('decision', decision);
  const answer = await fetch(`${url.origin}${url.pathname}`, {
    method: 'POST',
    body: form.toString(),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    redirect: 'manual',
  });
  expect(answer.status).toBe(302);
  return new URL(answer.headers.get('location') ?? '');
}

/** The browser's multipart POST of a presigned upload: the fields, then the file. */
export async function browserPost(upload: PresignedUpload, file: Uint8Array, changes: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  const form = new FormData();
  for (const [name, value] of Object.entries({ ...upload.fields, ...changes })) form.append(name, value);
  form.append('file', new Blob([file]), 'upload.bin');
  const answer = await fetch(upload.url, { method: 'POST', body: form, headers: { Origin: 'http://127.0.0.1:1234' } });
  return { status: answer.status, text: await answer.text() };
}

/** A 1x1 PNG. */
export const PNG_1X1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
