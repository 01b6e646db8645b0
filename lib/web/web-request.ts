/**
 * The request and response shapes settings routes work with (never API Gateway's event): a
 * POST's form already parsed, the signed-in user already loaded, and a response that is either a
 * page (lib/web/pages) or a redirect. lib/web/web-handler.ts does the rest (cookies, headers).
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { User } from '../domain/model.js';
import type { Caller } from '../domain/caller.js';
import type { SessionRecord } from '../use-cases/settings/ports.js';
import type { PersonTimeZone } from '../use-cases/settings/time-zone.js';
import type { Html } from './html.js';
import { badRequest } from './web-errors.js';

export interface WebRequest {
  method: string;
  path: string;
  pathParameters: Record<string, string>;
  query: Record<string, string>;
  /** A POST's application/x-www-form-urlencoded fields (first value of each name); empty otherwise. */
  form: Record<string, string>;
  headers: Record<string, string>;
  cookies: readonly string[];
  /** The client address API Gateway saw: what unauthenticated pages count requests against. */
  sourceIp: string;
}

export interface SignedIn {
  user: User;
  session: SessionRecord;
  /** SHA-256 of the session cookie (the session's key), for sign-out. */
  sessionKey: string;
  /** The same caller shape the API's use cases take, with every scope a settings key would carry. */
  caller: Caller;
  /** The zone every time on the person's pages reads in (lib/use-cases/settings/time-zone.ts). */
  timeZone: PersonTimeZone;
}

export type WebResult =
  | {
      kind: 'page';
      status?: number;
      title: string;
      body: Html;
      cookies?: string[];
      /**
       * Where this page's form may send the browser on: the consent page's answer redirects to the
       * assistant, and browsers apply CSP form-action to a form's redirects too.
       */
      formActionOrigins?: string[];
      /** The page ends the session it was asked with: it renders signed out (no header, no navigation). */
      signedOut?: boolean;
      /**
       * Where the browser goes on by itself (a `Refresh` header, a navigation of its own: CSP
       * form-action, which follows a form's redirects, does not apply), e.g. the provider's logout.
       */
      refreshTo?: string;
    }
  | { kind: 'redirect'; location: string; cookies?: string[] };

/** A form body larger than this is refused: no settings form comes near it. */
export const MAX_FORM_BYTES = 16 * 1024;

export function toWebRequest(event: APIGatewayProxyEventV2): WebRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.headers ?? {})) if (value !== undefined) headers[name.toLowerCase()] = value;
  const query: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.queryStringParameters ?? {})) if (value !== undefined) query[name] = value;
  const pathParameters: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.pathParameters ?? {})) if (value !== undefined) pathParameters[name] = value;
  const method = event.requestContext.http.method.toUpperCase();
  return {
    method,
    path: event.rawPath,
    pathParameters,
    query,
    form: method === 'POST' ? parseForm(event, headers) : {},
    headers,
    cookies: event.cookies ?? [],
    sourceIp: event.requestContext.http.sourceIp,
  };
}

function parseForm(event: APIGatewayProxyEventV2, headers: Record<string, string>): Record<string, string> {
  if (event.body === undefined || event.body === null || event.body === '') return {};
  const type = (headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') throw badRequest('Forms are sent as application/x-www-form-urlencoded.');
  const text = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  if (Buffer.byteLength(text) > MAX_FORM_BYTES) throw badRequest('The form is too large.');
  const form: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(text)) if (!(name in form)) form[name] = value;
  return form;
}

/**
 * A path inside the settings app to return to after sign-in: only `/settings` paths of plain
 * characters, so `returnTo` can never send someone to another site (`//evil`, `/\evil`, `https:`).
 */
export function safeReturnPath(value: string | undefined): string {
  if (value === undefined || value.length > 300) return '/settings';
  return /^\/settings(\/[A-Za-z0-9_\-./]*)?(\?[A-Za-z0-9_\-.=&%]*)?$/.test(value) && !value.includes('//') && !value.includes('..') ? value : '/settings';
}
