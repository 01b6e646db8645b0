/**
 * Who an assistant is. Two ways in, as MCP authorization 2025-11-25 describes:
 * - a Client ID Metadata Document: the client_id is an https URL; we fetch it when the assistant
 *   asks for authorization (nothing stored, so a client updates its name by updating its document);
 * - dynamic client registration (RFC 7591, kept by the revision for clients that predate metadata
 *   documents): POST /oauth/register stores the metadata and answers a client_id of ours.
 */
import { randomToken } from '../domain/ids.js';
import type { Clock } from '../use-cases/ports/clock.js';
import type { RateLimiter } from '../use-cases/ports/rate-limiter.js';
import { clientFromMetadataDocument, isMetadataDocumentClientId, parseClientMetadata } from './client-metadata.js';
import { AuthorizationPageError, OAuthError } from './errors.js';
import type { ClientMetadataFetcher, OAuthClient, OAuthClientStore } from './model.js';

const REGISTERED_CLIENT_ID = /^mcpc_[0-9A-Za-z]{24}$/;

export interface ClientDirectoryDeps {
  clients: OAuthClientStore;
  fetcher: ClientMetadataFetcher;
  clock: Clock;
  /** Local stack only: http://127.0.0.1 metadata documents. */
  allowLoopback: boolean;
  /** Counts the metadata-document fetches each address causes (METADATA_FETCHES_PER_MINUTE). */
  fetchLimiter: RateLimiter;
}

export class ClientDirectory {
  constructor(private readonly deps: ClientDirectoryDeps) {}

  /** RFC 7591 3.2.1: the registered client's information (no secret: public clients only). */
  async register(body: unknown): Promise<Record<string, unknown>> {
    const metadata = parseClientMetadata(body);
    const now = this.deps.clock.now();
    const client: OAuthClient = {
      clientId: `mcpc_${randomToken(24)}`,
      clientName: metadata.clientName,
      clientUri: metadata.clientUri,
      redirectUris: metadata.redirectUris,
      kind: 'registered',
      createdAt: now.toISOString(),
    };
    await this.deps.clients.putClient(client);
    return {
      client_id: client.clientId,
      client_id_issued_at: Math.floor(now.getTime() / 1000),
      client_name: client.clientName,
      ...(client.clientUri ? { client_uri: client.clientUri } : {}),
      redirect_uris: client.redirectUris,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  /**
   * The client behind a client_id, for the authorization request. Any failure is an
   * AuthorizationPageError: with no trusted client there is no trusted redirect URI to send an
   * error to (RFC 6749 4.1.2.1).
   */
  async resolveForAuthorization(clientId: string | undefined, callerAddress: string): Promise<OAuthClient> {
    if (clientId === undefined || clientId === '') throw new AuthorizationPageError('The assistant did not say who it is (client_id is missing).');
    try {
      const client = await this.resolve(clientId, callerAddress);
      if (!client) throw new AuthorizationPageError('This assistant is not known here. Ask it to register again, then retry.');
      return client;
    } catch (error) {
      if (error instanceof OAuthError) throw new AuthorizationPageError(`This assistant's description could not be used: ${error.description}`);
      throw error;
    }
  }

  /**
   * The client, or null for a client_id that is neither registered nor a metadata document URL.
   * A metadata document is fetched only while the caller's address is under its fetch limit.
   */
  async resolve(clientId: string, callerAddress: string): Promise<OAuthClient | null> {
    if (REGISTERED_CLIENT_ID.test(clientId)) return this.deps.clients.getClient(clientId);
    if (!isMetadataDocumentClientId(clientId, this.deps.allowLoopback)) return null;
    const decision = await this.deps.fetchLimiter.hit({ kind: 'fetch', address: callerAddress }, this.deps.clock.now());
    if (!decision.allowed) {
      throw new AuthorizationPageError('Too many assistants were looked up from your network in the last minute. Try again in a minute.', 429, decision.retryAfterSeconds);
    }
    const document = await this.deps.fetcher.fetch(clientId);
    return clientFromMetadataDocument(clientId, document, this.deps.clock.now());
  }
}
