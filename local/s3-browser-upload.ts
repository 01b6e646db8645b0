/**
 * S3's browser-based upload (POST Object with a signed policy) for the local stack. fauxqs, the S3
 * emulator, has no POST Object at all (a POST to a bucket is DeleteObjects there) and no CORS, so
 * presigned POSTs could not be tried locally. This stand-in accepts exactly what S3 accepts:
 *
 *   - the policy's SigV4 signature (X-Amz-Algorithm/Credential/Date/Signature) with the local
 *     credentials, and its expiration;
 *   - every condition: `{field: value}` and `["eq", "$field", value]`, `["starts-with", ...]`,
 *     `["content-length-range", min, max]` against the file's real size; and every form field
 *     other than the signature, policy and file must be named by a condition (as S3 requires);
 *
 * and the API's presigned PUTs (query-string SigV4, checkPresignedPut): the signature over the
 * signed headers (Content-Type and Content-Length: a PUT of another type or size is refused as S3
 * refuses it, SignatureDoesNotMatch), its expiry, and a body of exactly Content-Length bytes;
 *
 * then writes the object to fauxqs with PutObject and answers 204 (S3's default
 * success_action_status), or 303 to success_action_redirect, or 403/400 with S3's XML error body. CORS answers any loopback origin
 * (the settings pages run on a free port).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { S3Client } from '@aws-sdk/client-s3';
import { putObjectInParts } from '../lib/store/s3-put-in-parts.js';
import { listenOnLoopback } from './free-port.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './local-aws.js';

export interface S3BrowserUploadOptions {
  s3Endpoint: string;
  port?: number;
  /** Largest request body read (the policies bound the file further). */
  maxBodyBytes?: number;
}

export interface S3BrowserUpload {
  /** Base URL; a bucket's upload URL is `<url>/<bucket>`. */
  url: string;
  stop(): Promise<void>;
}

class PolicyError extends Error {
  constructor(
    readonly status: number,
    readonly s3Code: string,
    message: string,
  ) {
    super(message);
  }
}

function hmac(key: Buffer | string, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

function corsHeaders(req: IncomingMessage): Record<string, string> {
  const origin = String(req.headers.origin ?? '');
  let allowed = false;
  try {
    const host = new URL(origin).hostname;
    allowed = host === '127.0.0.1' || host === 'localhost';
  } catch {
    allowed = false;
  }
  return allowed ? { 'Access-Control-Allow-Origin': origin, 'Access-Control-Allow-Methods': 'POST, PUT', 'Access-Control-Allow-Headers': '*', Vary: 'Origin' } : {};
}

function xmlError(res: ServerResponse, headers: Record<string, string>, error: PolicyError): void {
  const escape = (text: string) => text.replace(/[<>&]/g, (char) => `&#${char.charCodeAt(0)};`);
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${error.s3Code}</Code><Message>${escape(error.message)}</Message></Error>`;
  res.writeHead(error.status, { ...headers, 'Content-Type': 'application/xml' });
  res.end(body);
}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new PolicyError(400, 'EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Checks signature, expiry and conditions; returns the key, content type and bytes to store. */
export function checkPostPolicy(
  bucket: string,
  form: Map<string, string>,
  file: { size: number } | null,
  now: Date,
  credentials: { accessKeyId: string; secretAccessKey: string } = LOCAL_CREDENTIALS,
): { key: string; contentType: string } {
  const policyB64 = form.get('policy');
  const signature = form.get('x-amz-signature') ?? '';
  const credential = form.get('x-amz-credential') ?? '';
  if (!policyB64 || form.get('x-amz-algorithm') !== 'AWS4-HMAC-SHA256') throw new PolicyError(403, 'AccessDenied', 'Bucket POST must contain a policy signed with AWS4-HMAC-SHA256');
  const [accessKey, date, region, service, terminator] = credential.split('/');
  if (accessKey !== credentials.accessKeyId || !date || region !== LOCAL_REGION || service !== 's3' || terminator !== 'aws4_request') {
    throw new PolicyError(403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.');
  }
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${credentials.secretAccessKey}`, date), region), service), 'aws4_request');
  const expected = hmac(signingKey, policyB64).toString('hex');
  if (signature.length !== expected.length || !timingSafeEqual(Buffer.from(signature), Buffer.from(expected))) {
    throw new PolicyError(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.');
  }
  let policy: { expiration?: unknown; conditions?: unknown };
  try {
    policy = JSON.parse(Buffer.from(policyB64, 'base64').toString('utf8')) as typeof policy;
  } catch {
    throw new PolicyError(400, 'InvalidPolicyDocument', 'Invalid Policy: Invalid JSON.');
  }
  if (typeof policy.expiration !== 'string' || !(Date.parse(policy.expiration) > now.getTime())) {
    throw new PolicyError(403, 'AccessDenied', 'Invalid according to Policy: Policy expired.');
  }
  if (!Array.isArray(policy.conditions)) throw new PolicyError(400, 'InvalidPolicyDocument', 'Invalid Policy: conditions missing.');
  const fields = new Map(form);
  fields.set('bucket', bucket);
  const covered = new Set(['policy', 'x-amz-signature', 'file', 'bucket']);
  const fail = (what: string) => new PolicyError(403, 'AccessDenied', `Invalid according to Policy: Policy Condition failed: ${what}`);
  for (const condition of policy.conditions as unknown[]) {
    if (Array.isArray(condition)) {
      const [op, field, value, max] = condition as [unknown, unknown, unknown, unknown];
      if (op === 'content-length-range') {
        if (!file || typeof field !== 'number' || typeof value !== 'number' || file.size < field || file.size > value) {
          throw new PolicyError(400, file && typeof value === 'number' && file.size > value ? 'EntityTooLarge' : 'EntityTooSmall', `Your proposed upload size does not fit content-length-range ${String(field)}-${String(value)}`);
        }
        continue;
      }
      if (typeof field !== 'string' || !field.startsWith('$') || typeof value !== 'string' || max !== undefined) throw new PolicyError(400, 'InvalidPolicyDocument', 'Invalid Policy: bad condition.');
      const name = field.slice(1).toLowerCase();
      covered.add(name);
      const actual = fields.get(name) ?? '';
      if (op === 'eq' ? actual !== value : op === 'starts-with' ? !actual.startsWith(value) : true) throw fail(JSON.stringify(condition));
    } else if (condition !== null && typeof condition === 'object') {
      for (const [name, value] of Object.entries(condition)) {
        covered.add(name.toLowerCase());
        if (fields.get(name.toLowerCase()) !== value) throw fail(JSON.stringify(condition));
      }
    }
  }
  for (const name of form.keys()) {
    if (!covered.has(name) && !name.startsWith('x-ignore-')) throw new PolicyError(403, 'AccessDenied', `Invalid according to Policy: Extra input fields: ${name}`);
  }
  const key = form.get('key');
  if (!key || !file) throw new PolicyError(400, 'InvalidArgument', 'Bucket POST must contain a key and a file field');
  return { key, contentType: form.get('content-type') ?? 'binary/octet-stream' };
}

/** RFC 3986 encoding as SigV4's canonical query string wants it. */
function uriEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * Checks a presigned PUT as S3 does (query-string SigV4, UNSIGNED-PAYLOAD): the credential's
 * scope, the expiry (X-Amz-Date + X-Amz-Expires), and the signature over the canonical request
 * built from the request as received, so a header the signature binds (Content-Type,
 * Content-Length) sent with another value fails. Returns the bucket and key to store.
 */
export function checkPresignedPut(
  request: { path: string; query: URLSearchParams; headers: Record<string, string | string[] | undefined> },
  now: Date,
  credentials: { accessKeyId: string; secretAccessKey: string } = LOCAL_CREDENTIALS,
): { bucket: string; key: string } {
  const q = request.query;
  const mismatch = () => new PolicyError(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided. Check your key and signing method.');
  if (q.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256' || !q.get('X-Amz-Signature')) throw new PolicyError(403, 'AccessDenied', 'Query-string authentication (AWS4-HMAC-SHA256) is required');
  const [accessKey, date, region, service, terminator] = (q.get('X-Amz-Credential') ?? '').split('/');
  if (accessKey !== credentials.accessKeyId || !date || region !== LOCAL_REGION || service !== 's3' || terminator !== 'aws4_request') {
    throw new PolicyError(403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.');
  }
  const amzDate = q.get('X-Amz-Date') ?? '';
  const signedAt = Date.parse(amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'));
  const expires = Number(q.get('X-Amz-Expires'));
  if (!Number.isFinite(signedAt) || !Number.isInteger(expires) || expires <= 0 || expires > 604_800) throw new PolicyError(400, 'AuthorizationQueryParametersError', 'X-Amz-Date and X-Amz-Expires must be valid');
  if (now.getTime() > signedAt + expires * 1000) throw new PolicyError(403, 'AccessDenied', 'Request has expired');
  const signedHeaders = (q.get('X-Amz-SignedHeaders') ?? '').split(';').filter((name) => name !== '');
  if (!signedHeaders.includes('host')) throw mismatch();
  const canonicalHeaders = signedHeaders
    .map((name) => {
      const value = request.headers[name];
      if (value === undefined) throw mismatch();
      return `${name}:${(Array.isArray(value) ? value.join(',') : value).trim().replace(/\s+/g, ' ')}\n`;
    })
    .join('');
  const canonicalQuery = [...q.entries()]
    .filter(([name]) => name !== 'X-Amz-Signature')
    .map(([name, value]) => [uriEncode(name), uriEncode(value)] as const)
    .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  const canonicalRequest = ['PUT', request.path, canonicalQuery, canonicalHeaders, signedHeaders.join(';'), 'UNSIGNED-PAYLOAD'].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, createHash('sha256').update(canonicalRequest, 'utf8').digest('hex')].join('\n');
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${credentials.secretAccessKey}`, date), region), service), 'aws4_request');
  const expected = hmac(signingKey, stringToSign).toString('hex');
  const given = q.get('X-Amz-Signature') ?? '';
  if (given.length !== expected.length || !timingSafeEqual(Buffer.from(given), Buffer.from(expected))) throw mismatch();
  const [bucket, ...key] = request.path.replace(/^\/+/, '').split('/').map((segment) => decodeURIComponent(segment));
  if (!bucket || key.length === 0 || key.some((segment) => segment === '')) throw new PolicyError(400, 'InvalidRequest', 'A PUT names a bucket and a key');
  return { bucket, key: key.join('/') };
}

export async function startS3BrowserUpload(options: S3BrowserUploadOptions): Promise<S3BrowserUpload> {
  const s3 = new S3Client({ endpoint: options.s3Endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, forcePathStyle: true });
  const limit = options.maxBodyBytes ?? 520 * 1024 * 1024;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const cors = corsHeaders(req);
    const bucket = decodeURIComponent(new URL(req.url ?? '/', 'http://upload').pathname.replace(/^\/+|\/+$/g, ''));
    if (req.method === 'OPTIONS') {
      res.writeHead(cors['Access-Control-Allow-Origin'] ? 200 : 403, cors);
      return void res.end();
    }
    if (req.method === 'PUT') return handlePut(req, res, cors);
    if (req.method !== 'POST' || bucket === '' || bucket.includes('/')) {
      return xmlError(res, cors, new PolicyError(405, 'MethodNotAllowed', 'Only POST to a bucket is served here'));
    }
    try {
      const body = await readBody(req, limit);
      const type = String(req.headers['content-type'] ?? '');
      if (!type.startsWith('multipart/form-data')) throw new PolicyError(412, 'PreconditionFailed', 'Bucket POST must be of the enclosure-type multipart/form-data');
      let parsed: FormData;
      try {
        parsed = await new Response(body, { headers: { 'content-type': type } }).formData();
      } catch {
        throw new PolicyError(400, 'MalformedPOSTRequest', 'The body of your POST request is not well-formed multipart/form-data.');
      }
      const form = new Map<string, string>();
      let file: Blob | null = null;
      for (const [name, value] of parsed.entries()) {
        if (name.toLowerCase() === 'file' && typeof value !== 'string') file = value;
        else if (typeof value === 'string') form.set(name.toLowerCase(), value);
      }
      const { key, contentType } = checkPostPolicy(bucket, form, file, new Date());
      const bytes = new Uint8Array(await (file as Blob).arrayBuffer());
      const etag = await putObjectInParts(s3, { Bucket: bucket, Key: key, ContentType: contentType }, bytes);
      const redirect = form.get('success_action_redirect');
      if (redirect) {
        // As S3: 303 to the redirect, with the bucket, key and ETag of what was stored.
        const location = new URL(redirect);
        location.searchParams.set('bucket', bucket);
        location.searchParams.set('key', key);
        location.searchParams.set('etag', etag);
        res.writeHead(303, { ...cors, Location: location.toString(), ETag: etag });
        return void res.end();
      }
      res.writeHead(204, { ...cors, ETag: etag });
      res.end();
    } catch (error) {
      if (error instanceof PolicyError) return xmlError(res, cors, error);
      throw error;
    }
  };

  /** A presigned PUT (the API's uploads): checked, read to exactly its Content-Length, stored. */
  const handlePut = async (req: IncomingMessage, res: ServerResponse, cors: Record<string, string>): Promise<void> => {
    try {
      const url = new URL(req.url ?? '/', 'http://upload');
      if (req.headers['transfer-encoding'] !== undefined || req.headers['content-length'] === undefined) {
        throw new PolicyError(411, 'MissingContentLength', 'You must provide the Content-Length HTTP header.');
      }
      const { bucket: target, key } = checkPresignedPut({ path: url.pathname, query: url.searchParams, headers: req.headers }, new Date());
      const declared = Number(req.headers['content-length']);
      const body = await readBody(req, Math.min(limit, declared));
      if (body.length !== declared) throw new PolicyError(400, 'IncompleteBody', 'You did not provide the number of bytes specified by the Content-Length HTTP header.');
      const contentType = String(req.headers['content-type'] ?? 'binary/octet-stream');
      const etag = await putObjectInParts(s3, { Bucket: target, Key: key, ContentType: contentType }, body);
      res.writeHead(200, { ...cors, ETag: etag });
      res.end();
    } catch (error) {
      if (error instanceof PolicyError) {
        // What the client still sends is not read: S3 closes the connection too.
        res.setHeader('Connection', 'close');
        return xmlError(res, cors, error);
      }
      throw error;
    }
  };

  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      console.error('[s3-upload] request failed:', error instanceof Error ? error.message : String(error));
      if (!res.headersSent) xmlError(res, corsHeaders(req), new PolicyError(500, 'InternalError', 'We encountered an internal error. Please try again.'));
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const port = await listenOnLoopback(server, options.port ?? 0);
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      s3.destroy();
    },
  };
}
