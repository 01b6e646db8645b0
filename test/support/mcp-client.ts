/**
 * An assistant as the MCP SDK's own client builds one: StreamableHTTPClientTransport with an
 * OAuthClientProvider, so discovery (RFC 9728, RFC 8414), registration (dynamic, RFC 7591),
 * PKCE, the resource indicator and the token exchange are the SDK's code, not ours. The person's
 * part (sign-in and consent in a browser) is a `consent` function: it gets the authorization URL
 * and returns the URL the browser was sent back to (with `code` or `error`).
 */
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

/** Never listened on: the consent functions stop at this address and read the code off it (a port browsers allow). */
export const CALLBACK_URL = 'http://127.0.0.1:8976/callback';

export type Consent = (authorizationUrl: URL) => Promise<URL>;

export class TestOAuthProvider implements OAuthClientProvider {
  clientInfo: OAuthClientInformationMixed | undefined;
  savedTokens: OAuthTokens | undefined;
  verifier: string | undefined;
  lastState: string | undefined;
  pendingAuthorization: URL | undefined;

  constructor(
    private readonly metadata: OAuthClientMetadata,
    readonly clientMetadataUrl?: string,
  ) {}

  get redirectUrl(): string {
    return CALLBACK_URL;
  }
  get clientMetadata(): OAuthClientMetadata {
    return this.metadata;
  }
  state(): string {
    this.lastState = randomBytes(16).toString('hex');
    return this.lastState;
  }
  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.clientInfo;
  }
  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.clientInfo = info;
  }
  tokens(): OAuthTokens | undefined {
    return this.savedTokens;
  }
  saveTokens(tokens: OAuthTokens): void {
    this.savedTokens = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.pendingAuthorization = url;
  }
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    if (!this.verifier) throw new Error('no code verifier saved');
    return this.verifier;
  }
}

export function testProvider(name = 'Test Assistant', scope?: string): TestOAuthProvider {
  return new TestOAuthProvider({
    client_name: name,
    client_uri: 'https://assistant.example/about',
    redirect_uris: [CALLBACK_URL],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...(scope ? { scope } : {}),
  });
}

export interface ConnectedAssistant {
  client: Client;
  provider: TestOAuthProvider;
  close(): Promise<void>;
}

/**
 * Connects as the SDK does: the first connect meets the 401, the SDK discovers and registers and
 * hands us the authorization URL; the person consents; finishAuth exchanges the code; connect again.
 */
export async function connectAssistant(mcpUrl: string, consent: Consent, provider = testProvider()): Promise<ConnectedAssistant> {
  const attempt = async (): Promise<Client> => {
    const client = new Client({ name: 'test-assistant', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }));
    return client;
  };
  let client: Client;
  try {
    client = await attempt();
  } catch (error) {
    if (!(error instanceof UnauthorizedError) || !provider.pendingAuthorization) throw error;
    const callback = await consent(provider.pendingAuthorization);
    if (callback.searchParams.get('state') !== provider.lastState) throw new Error('state did not come back unchanged');
    const code = callback.searchParams.get('code');
    if (!code) throw new Error(`authorization refused: ${callback.searchParams.get('error') ?? 'no code'}`);
    const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider });
    await transport.finishAuth(code);
    client = await attempt();
  }
  return { client, provider, close: () => client.close() };
}
