/**
 * The local API Gateway: a node:http server that turns each request into an HTTP API payload 2.0
 * event (api-gateway-event.ts), calls the `handler` of the route's module from functions/catalogue.ts,
 * and writes the result back the way API Gateway would. It also serves the media bucket under
 * /media/<key>, standing in for the public media URL that MEDIA_BASE_URL names on AWS.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { GetObjectCommand, HeadObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import {
  buildHttpApiEvent,
  compileRoutes,
  gatewayResponse,
  matchRoute,
  MAX_REQUEST_BODY_BYTES,
  toHttpResponse,
  type HttpResponseParts,
  type RouteDefinition,
} from './api-gateway-event.js';
import { INCOMING_PREFIX, MEDIA_RESPONSE_HEADERS } from '../lib/domain/media-library.js';
import { listenOnLoopback } from './free-port.js';
import { entryExists, lambdaContext, loadHandler } from './lambda-runtime.js';
import { s3ClientFor } from './messaging.js';

export interface ApiRouteModule extends RouteDefinition {
  name: string;
  entry: string;
}

export interface ApiServerOptions {
  /** Routes with full paths (base path included). */
  routes: readonly ApiRouteModule[];
  /** Handles every request no route matches (API Gateway's `$default` route). */
  defaultRoute: { name: string; entry: string };
  /** Serve GET /media/<key> from this bucket. */
  media: { s3Endpoint: string; bucket: string } | null;
  port?: number;
  /** API Gateway's integration timeout: after it the client gets a 503 (the Lambda keeps running). */
  integrationTimeoutMs?: number;
  log?: (message: string, error?: unknown) => void;
}

export interface ApiServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  port: number;
  stop(): Promise<void>;
}

const MEDIA_PREFIX = '/media/';

class BodyTooLargeError extends Error {
  constructor() {
    super('Request body exceeds the API Gateway limit');
    this.name = 'BodyTooLargeError';
  }
}

/**
 * Reads the whole body, keeping at most the API Gateway limit. An oversized body is still read to
 * its end (and dropped), so the client gets the 413 instead of a connection reset mid-upload.
 */
function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolvePromise, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_REQUEST_BODY_BYTES) chunks.push(chunk);
    });
    request.on('end', () => (size > MAX_REQUEST_BODY_BYTES ? reject(new BodyTooLargeError()) : resolvePromise(Buffer.concat(chunks))));
    request.on('error', reject);
  });
}

function send(response: ServerResponse, parts: HttpResponseParts, requestId: string): void {
  if (response.headersSent) return;
  response.statusCode = parts.statusCode;
  for (const [name, value] of Object.entries(parts.headers)) response.setHeader(name, value);
  if (parts.cookies.length > 0) response.setHeader('set-cookie', parts.cookies);
  response.setHeader('apigw-requestid', requestId);
  response.setHeader('content-length', parts.body.length);
  response.end(parts.body);
}

function sourceIpOf(request: IncomingMessage): string {
  const address = request.socket.remoteAddress ?? '127.0.0.1';
  // API Gateway reports IPv4 clients as plain IPv4.
  return address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
}

export async function startApiServer(options: ApiServerOptions): Promise<ApiServer> {
  const log = options.log ?? ((message: string, error?: unknown) => console.error(`[api] ${message}`, error ?? ''));
  const compiled = compileRoutes(options.routes);
  const integrationTimeoutMs = options.integrationTimeoutMs ?? 30_000;
  const s3: S3Client | null = options.media ? s3ClientFor(options.media.s3Endpoint) : null;
  // A route whose module does not exist yet is simply not deployed; once it exists it stays.
  const deployed = new Set<string>();
  const isDeployed = (entry: string): boolean => {
    if (deployed.has(entry)) return true;
    if (!entryExists(entry)) return false;
    deployed.add(entry);
    return true;
  };

  async function invoke(name: string, entry: string, event: unknown, requestId: string): Promise<HttpResponseParts> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<HttpResponseParts>((resolvePromise) => {
      timer = setTimeout(() => resolvePromise(gatewayResponse(503, 'Service Unavailable')), integrationTimeoutMs);
    });
    const run = (async (): Promise<HttpResponseParts> => {
      try {
        const handler = await loadHandler(entry);
        return toHttpResponse(await handler(event, lambdaContext(name, integrationTimeoutMs, requestId)));
      } catch (error) {
        log(`${name} failed`, error);
        return gatewayResponse(500, 'Internal Server Error');
      }
    })();
    try {
      return await Promise.race([run, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async function serveMedia(request: IncomingMessage, response: ServerResponse, pathname: string): Promise<void> {
    if (!s3 || !options.media) return send(response, gatewayResponse(404, 'Not Found'), randomUUID());
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD', 'content-length': 0 });
      response.end();
      return;
    }
    let key: string;
    try {
      key = decodeURIComponent(pathname.slice(MEDIA_PREFIX.length));
    } catch {
      key = '';
    }
    // Uploads not registered (yet) are never served: on AWS the bucket policy refuses them to the CDN.
    if (key === '' || key.startsWith(INCOMING_PREFIX)) return notFound(response);
    try {
      const input = { Bucket: options.media.bucket, Key: key };
      if (request.method === 'HEAD') {
        const head = await s3.send(new HeadObjectCommand(input));
        response.writeHead(200, mediaHeaders(head.ContentType, head.ContentLength, head.ETag));
        response.end();
        return;
      }
      const object = await s3.send(new GetObjectCommand(input));
      response.writeHead(200, mediaHeaders(object.ContentType, object.ContentLength, object.ETag));
      const body = object.Body as Readable | undefined;
      if (!body) return void response.end();
      body.on('error', () => response.destroy());
      body.pipe(response);
    } catch (error) {
      const name = (error as { name?: string }).name;
      if (name === 'NoSuchKey' || name === 'NotFound') return notFound(response);
      log(`media ${key} failed`, error);
      if (!response.headersSent) response.writeHead(500, { 'content-length': 0 });
      response.end();
    }
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = request.url ?? '/';
    const pathname = url.split('?')[0] ?? '/';
    if (pathname.startsWith(MEDIA_PREFIX)) return serveMedia(request, response, pathname);

    const requestId = randomUUID();
    const now = new Date();
    let body: Buffer;
    try {
      body = await readBody(request);
    } catch (error) {
      if (error instanceof BodyTooLargeError) return send(response, gatewayResponse(413, 'Request Entity Too Large'), requestId);
      throw error;
    }
    const method = request.method ?? 'GET';
    const available = compiled.filter((candidate) => isDeployed(candidate.route.entry));
    const match = matchRoute(available, method, pathname);
    const target = match ? match.route : isDeployed(options.defaultRoute.entry) ? options.defaultRoute : null;
    if (!target) return send(response, gatewayResponse(404, 'Not Found'), requestId);
    const event = buildHttpApiEvent(
      {
        method,
        url,
        rawHeaders: request.rawHeaders,
        body,
        sourceIp: sourceIpOf(request),
        localPort: request.socket.localPort ?? 0,
        httpVersion: request.httpVersion,
        requestId,
        now,
      },
      match,
    );
    send(response, await invoke(target.name, target.entry, event, requestId), requestId);
  }

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      log('request failed', error);
      send(response, gatewayResponse(500, 'Internal Server Error'), randomUUID());
    });
  });
  const port = await listenOnLoopback(server, options.port);
  let stopping: Promise<void> | undefined;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    stop: () => {
      stopping ??= new Promise<void>((resolvePromise) => {
        server.close(() => resolvePromise());
        server.closeIdleConnections();
        // Requests still running get a moment to finish, then their connections are cut.
        setTimeout(() => server.closeAllConnections(), 2000).unref();
      }).finally(() => s3?.destroy());
      return stopping;
    },
  };
}

function notFound(response: ServerResponse): void {
  response.writeHead(404, { 'content-type': 'text/plain', 'content-length': 9 });
  response.end('Not Found');
}

function mediaHeaders(contentType: string | undefined, length: number | undefined, etag: string | undefined): Record<string, string | number> {
  return {
    // What the CDN's response headers policy adds on AWS (infra/stacks/data-stack.ts).
    ...MEDIA_RESPONSE_HEADERS,
    'content-type': contentType ?? 'application/octet-stream',
    ...(length === undefined ? {} : { 'content-length': length }),
    ...(etag === undefined ? {} : { etag }),
  };
}
