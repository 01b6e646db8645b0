/**
 * What the assistant server's functions share, built once per cold start on first use (importing
 * a function module reads no configuration), each piece reading only its own settings.
 */
import { ENV, numberEnv, optionalEnv, requireEnv } from '../config.js';
import { DynamoDbUserStore } from '../store/dynamodb-user-store.js';
import { requestCounting } from '../http/api-pipeline.js';
import { systemClock } from '../use-cases/ports/clock.js';
import type { RateLimiter } from '../use-cases/ports/rate-limiter.js';
import type { UserReader } from '../use-cases/ports/users.js';
import { DynamoDbGrantStore } from '../store/dynamodb-grant-store.js';
import { DynamoDbOAuthClientStore } from '../store/dynamodb-oauth-client-store.js';
import { Authorization } from './authorization.js';
import { HttpClientMetadataFetcher } from './client-metadata-fetcher.js';
import { ClientDirectory } from './clients.js';
import { serviceUrls, type ServiceUrls } from './metadata.js';
import { ACCESS_TOKEN_SECONDS, TokenService } from './token-service.js';

let urls: ServiceUrls | undefined;
let grants: DynamoDbGrantStore | undefined;
let clients: ClientDirectory | undefined;
let authorization: Authorization | undefined;
let tokens: TokenService | undefined;

/** The public URLs of the MCP server and the authorization server (SERVICE_ORIGIN). */
export function oauthUrls(): ServiceUrls {
  urls ??= serviceUrls(requireEnv(ENV.serviceOrigin));
  return urls;
}

export function grantStore(): DynamoDbGrantStore {
  grants ??= new DynamoDbGrantStore();
  return grants;
}

export function clientDirectory(): ClientDirectory {
  clients ??= new ClientDirectory({
    clients: new DynamoDbOAuthClientStore(),
    fetcher: new HttpClientMetadataFetcher({ allowLoopback: loopbackClientsAllowed() }),
    clock: systemClock,
    allowLoopback: loopbackClientsAllowed(),
    // Built on first fetch: registration, which never fetches, reads no rate settings for it.
    fetchLimiter: { hit: (bucket, now) => addressLimiter().hit(bucket, now) },
  });
  return clients;
}

let limiter: RateLimiter | undefined;

/** The per-address counter of the API's unauthenticated requests (lib/http), shared by the authorization server. */
export function addressLimiter(): RateLimiter {
  limiter ??= requestCounting().rateLimiter;
  return limiter;
}

export function authorizationFlow(): Authorization {
  authorization ??= new Authorization({ clients: clientDirectory(), grants: grantStore(), clock: systemClock, urls: oauthUrls() });
  return authorization;
}

/**
 * The token service; the directory (read for the user behind a token) is built on first use, so the
 * token endpoint, which never reads a user, needs no directory table.
 */
export function tokenService(directory?: UserReader): TokenService {
  let users = directory;
  tokens ??= new TokenService({
    grants: grantStore(),
    users: { getUser: (userId: string) => (users ??= new DynamoDbUserStore()).getUser(userId) },
    clock: systemClock,
    urls: oauthUrls(),
    accessTokenSeconds: numberEnv(ENV.oauthAccessTokenSeconds, ACCESS_TOKEN_SECONDS),
  });
  return tokens;
}

/** Local stack only: assistants on http://127.0.0.1 (tests serve their metadata documents there). */
export function loopbackClientsAllowed(): boolean {
  return optionalEnv(ENV.oauthAllowLoopbackClients, 'false') === 'true';
}
