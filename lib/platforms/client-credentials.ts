/**
 * The OAuth client id and secret of our app on each platform, needed to refresh user tokens.
 * Locally they come from X_CLIENT_ID / X_CLIENT_SECRET (LINKEDIN_CLIENT_ID / ...); on AWS from the
 * Secrets Manager secret named by PLATFORM_CREDENTIALS_SECRET_ID, whose value is JSON:
 * `{"x": {"clientId", "clientSecret"}, "linkedin": {"clientId", "clientSecret"}}`.
 * Read lazily, at the first refresh, so a worker that never refreshes never needs them.
 *
 * The client id alone (an authorize URL) comes from X_CLIENT_ID / LINKEDIN_CLIENT_ID: on AWS the
 * function that starts a connect has those and not the secret (infra/stacks/function-access.ts).
 */
import { ENV } from '../config.js';
import type { PublishablePlatform } from '../domain/model.js';
import { readSecret } from '../secrets.js';

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

export class PlatformCredentialsMissingError extends Error {
  readonly code = 'platform_credentials_missing';
  constructor(platform: PublishablePlatform, options: { cause?: unknown } = {}) {
    super(`No OAuth client credentials configured for ${platform}`, options);
    this.name = 'PlatformCredentialsMissingError';
  }
}

const ENV_NAMES: Record<PublishablePlatform, { id: string; secret: string }> = {
  x: { id: ENV.xClientId, secret: ENV.xClientSecret },
  linkedin: { id: ENV.linkedinClientId, secret: ENV.linkedinClientSecret },
};

export async function platformClientCredentials(platform: PublishablePlatform): Promise<ClientCredentials> {
  const names = ENV_NAMES[platform];
  const clientId = process.env[names.id];
  const clientSecret = process.env[names.secret];
  if (clientId && clientSecret) return { clientId, clientSecret };
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readSecret(ENV.platformCredentials, ENV.platformCredentialsSecretId));
  } catch (error) {
    throw new PlatformCredentialsMissingError(platform, { cause: error });
  }
  const entry = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>)[platform] : undefined;
  if (typeof entry === 'object' && entry !== null) {
    const { clientId: id, clientSecret: secret } = entry as Record<string, unknown>;
    if (typeof id === 'string' && id !== '' && typeof secret === 'string' && secret !== '') {
      return { clientId: id, clientSecret: secret };
    }
  }
  throw new PlatformCredentialsMissingError(platform);
}

/**
 * The app's client id on the platform, for an authorize URL: the plain variable when set (the
 * start of a connect on AWS reads no secret), the credentials otherwise (local inline JSON).
 */
export async function platformClientId(platform: PublishablePlatform): Promise<string> {
  const clientId = process.env[ENV_NAMES[platform].id];
  if (clientId) return clientId;
  // Bound but empty: the deployment was given no client id for this platform.
  if (clientId === '') throw new PlatformCredentialsMissingError(platform);
  return (await platformClientCredentials(platform)).clientId;
}
