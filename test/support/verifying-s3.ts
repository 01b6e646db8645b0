/**
 * A small S3 stand-in that checks SigV4 signatures the way S3 does, for the media bucket's signed
 * requests (lib/store/s3-signed-requests.ts): the local S3 emulator (fauxqs) does not check them.
 * It rebuilds the canonical request from what arrived on the wire (only the headers the request
 * says it signed) and recomputes the signature. Path-style, over a few in-memory objects:
 * GetObject (ranges too), HeadObject and DeleteObject. test/store/s3-media-source.test.ts shows
 * the official S3 client's GetObject passes the same check and a wrong secret does not.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity } from '@smithy/types';

export interface Seen {
  method: string;
  path: string;
  signedHeaders: string[];
  verdict: 'ok' | 'bad signature' | 'unsigned';
}

export class VerifyingS3 {
  /** By path (`/<bucket>/<key>`, decoded). */
  readonly objects = new Map<string, { body: Uint8Array; contentType: string }>();
  readonly seen: Seen[] = [];
  /** Answers these statuses first, one per request, before serving normally. */
  readonly faults: number[] = [];
  private server: Server | undefined;
  private readonly verifier: SignatureV4;

  constructor(region: string, credentials: AwsCredentialIdentity) {
    this.verifier = new SignatureV4({ service: 's3', region, credentials, sha256: Sha256, uriEscapePath: false });
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  private async verify(req: IncomingMessage, path: string, query: URLSearchParams): Promise<Seen> {
    const method = req.method ?? 'GET';
    const authorization = req.headers.authorization ?? '';
    const match = /^AWS4-HMAC-SHA256 Credential=([^,]+), SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(authorization);
    const amzDate = req.headers['x-amz-date'];
    if (!match || typeof amzDate !== 'string') return { method, path, signedHeaders: [], verdict: 'unsigned' };
    const signedHeaders = (match[2] ?? '').split(';');
    const headers: Record<string, string> = {};
    for (const name of signedHeaders) {
      const value = req.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const [, y, mo, d, h, mi, s] = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate) ?? [];
    const signingDate = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}Z`);
    const expected = await this.verifier.sign({ method, protocol: 'http:', hostname: '127.0.0.1', path, query: Object.fromEntries(query), headers }, { signingDate });
    return { method, path, signedHeaders, verdict: expected.headers.authorization === authorization ? 'ok' : 'bad signature' };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const [rawPath = '', rawQuery = ''] = (req.url ?? '').split('?');
    const seen = await this.verify(req, rawPath, new URLSearchParams(rawQuery));
    this.seen.push(seen);
    const fault = this.faults.shift();
    if (seen.verdict !== 'ok') return this.error(res, 403, seen.verdict === 'unsigned' ? 'AccessDenied' : 'SignatureDoesNotMatch');
    if (fault !== undefined) return this.error(res, fault, fault === 503 ? 'SlowDown' : 'InternalError');
    const path = decodeURIComponent(rawPath);
    const object = this.objects.get(path);
    if (req.method === 'DELETE') {
      // As S3: 204 whether or not the object was there.
      this.objects.delete(path);
      res.writeHead(204);
      return void res.end();
    }
    if (!object) return this.error(res, 404, 'NoSuchKey');
    const headers = { 'content-type': object.contentType };
    const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    if (range) {
      const start = Number(range[1]);
      const end = Math.min(Number(range[2]), object.body.length - 1);
      res.writeHead(206, { ...headers, 'content-length': String(end + 1 - start), 'content-range': `bytes ${start}-${end}/${object.body.length}` });
      return void res.end(req.method === 'HEAD' ? undefined : object.body.subarray(start, end + 1));
    }
    res.writeHead(200, { ...headers, 'content-length': String(object.body.length) });
    res.end(req.method === 'HEAD' ? undefined : object.body);
  }

  private error(res: ServerResponse, status: number, code: string): void {
    res.writeHead(status, { 'content-type': 'application/xml' });
    // HEAD answers carry no body, as S3's do not.
    res.end(res.req.method === 'HEAD' ? undefined : `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${code}</Message></Error>`);
  }
}
