/**
 * GET /docs and GET /docs/{file}: the API reference, rendered from openapi.yaml by Redoc at build
 * time (web/api-reference/build.ts). On AWS the build is copied beside the bundle (infra: the
 * function's `copyFiles`, built at synth); locally it is read from dist/api-reference, which the
 * local stack builds at start. Only the files the build names exist; nothing else on disk is
 * reachable. The files are the same for everyone and change only with a deploy: cacheable for a
 * few minutes, gzipped when the browser takes it (the script is 2 MB, 0.6 MB gzipped).
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { apiReferenceSecurityHeaders } from '../lib/web/security-headers.js';

const TYPES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'reference.js': 'text/javascript; charset=utf-8',
  'theme.js': 'text/javascript; charset=utf-8',
  'reference.css': 'text/css; charset=utf-8',
};

/** Beside the bundle on AWS (./api-reference), or the repository's dist/api-reference when run from source. */
function buildDirectory(): string {
  for (const candidate of ['./api-reference/', '../dist/api-reference/']) {
    const path = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new Error('The API reference is not built (web/api-reference/build.ts)');
}

let directory: string | undefined;
const cache = new Map<string, Buffer>();

function read(name: string): Buffer {
  let body = cache.get(name);
  if (body === undefined) {
    directory ??= buildDirectory();
    body = readFileSync(`${directory}${name}`);
    cache.set(name, body);
  }
  return body;
}

export async function handler(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
  const name = event.pathParameters?.file ?? 'index.html';
  const type = Object.hasOwn(TYPES, name) ? TYPES[name] : undefined;
  if (!type) return { statusCode: 404, headers: { ...apiReferenceSecurityHeaders(), 'Content-Type': 'text/plain; charset=utf-8' }, body: 'Not found' };
  const gzip = /\bgzip\b/.test(event.headers?.['accept-encoding'] ?? '');
  const headers = {
    ...apiReferenceSecurityHeaders(),
    'Content-Type': type,
    'Cache-Control': 'public, max-age=300',
    Vary: 'Accept-Encoding',
  };
  if (gzip) return { statusCode: 200, headers: { ...headers, 'Content-Encoding': 'gzip' }, isBase64Encoded: true, body: read(`${name}.gz`).toString('base64') };
  return { statusCode: 200, headers, body: read(name).toString('utf8') };
}
