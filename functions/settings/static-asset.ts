/**
 * GET /settings/static/{file}: the settings pages' stylesheet and script (web/static). On AWS the
 * files are copied beside the bundle (infra: the function's `copyFiles`); locally they are read
 * from the repository. Only names listed in web/static exist; nothing else on disk is reachable.
 */
import { readFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { securityHeaders } from '../../lib/web/security-headers.js';

const TYPES: Record<string, string> = { css: 'text/css; charset=utf-8', js: 'text/javascript; charset=utf-8', svg: 'image/svg+xml' };
const NAME = /^[a-z0-9-]{1,40}\.(css|js|svg)$/;

/** Beside the bundle on AWS (./static), or the repository's web/static when run from source. */
function staticDirectory(): string {
  for (const candidate of ['./static/', '../../web/static/']) {
    const path = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new Error('web/static not found beside the function');
}

let directory: string | undefined;
const cache = new Map<string, string>();

export async function handler(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
  const name = event.pathParameters?.file ?? '';
  const extension = NAME.exec(name)?.[1];
  directory ??= staticDirectory();
  let body = extension ? cache.get(name) : undefined;
  if (extension && body === undefined && existsSync(`${directory}${name}`)) {
    body = readFileSync(`${directory}${name}`, 'utf8');
    cache.set(name, body);
  }
  if (!extension || body === undefined) {
    return { statusCode: 404, headers: { ...securityHeaders(), 'Content-Type': 'text/plain; charset=utf-8' }, body: 'Not found' };
  }
  return {
    statusCode: 200,
    // Not secret and the same for everyone: cacheable for a few minutes (a deploy shows within them).
    headers: { ...securityHeaders(), 'Content-Type': TYPES[extension] ?? 'application/octet-stream', 'Cache-Control': 'public, max-age=300' },
    body,
  };
}
