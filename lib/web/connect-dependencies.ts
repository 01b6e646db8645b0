/**
 * The adapters behind connecting accounts and the media library in settings, built once per
 * process on first use (Powertools style: clients at module scope, configuration read through
 * helpers that throw when it is missing). The redirect URIs registered with the platforms are
 * `<SETTINGS_BASE_URL>/settings/connect/<platform>/callback` (stack outputs XRedirectUrl and
 * LinkedInRedirectUrl).
 */
import { ENV, requireEnv } from '../config.js';
import type { PublishablePlatform } from '../domain/model.js';
import { linkedinConnectorFromEnv } from '../platforms/linkedin-connect.js';
import { xConnectorFromEnv } from '../platforms/x-connect.js';
import { DynamoDbAccountConnectionStore } from '../store/dynamodb-account-connections.js';
import { DynamoDbConnectAttemptStore } from '../store/dynamodb-connect-attempts.js';
import { DynamoDbAccountStore } from '../store/dynamodb-account-store.js';
import { DynamoDbMediaLibraryStore } from '../store/dynamodb-media-library.js';
import { DynamoDbWorkspaceStore } from '../store/dynamodb-workspace-store.js';
import { mediaBucket } from '../store/media-bucket.js';
import { browserUploadUrl, S3MediaUploads } from '../store/s3-media-uploads.js';
import { tokenCipherFromEnv } from '../store/token-cipher.js';
import type { TokenCipher } from '../use-cases/ports/token-cipher.js';
import { ConnectAccount } from '../use-cases/settings/connect-account.js';
import { ListConnectedAccounts } from '../use-cases/settings/connected-accounts.js';
import { MediaLibrary } from '../use-cases/settings/media-library.js';
import { directoryTable } from './web-dependencies.js';

/** The path of each platform's OAuth callback (one route each, so each is registered on its own). */
export function connectCallbackPath(platform: PublishablePlatform): string {
  return `/settings/connect/${platform}/callback`;
}

export function connectRedirectUri(baseUrl: string, platform: PublishablePlatform): string {
  return `${baseUrl.replace(/\/+$/, '')}${connectCallbackPath(platform)}`;
}

function lazyCipher(): TokenCipher {
  let cipher: TokenCipher | undefined;
  const get = (): TokenCipher => (cipher ??= tokenCipherFromEnv());
  return { encrypt: (plain, context) => get().encrypt(plain, context), decrypt: (text, context) => get().decrypt(text, context) };
}

let connect: ConnectAccount | undefined;
let media: MediaLibrary | undefined;
let listing: ListConnectedAccounts | undefined;

/**
 * Origins the accounts page's connect forms end up at (the POST answers with a redirect to the
 * platform's authorize page, and form-action covers redirects): the real sign-in hosts on AWS,
 * the sandbox locally. Read at answer time, from the same settings the connectors read.
 */
export function connectFormActionOrigins(): string[] {
  const x = new URL(xConnectorFromEnv().authorizeUrlBase).origin;
  const linkedin = new URL(linkedinConnectorFromEnv().oauthOrigin).origin;
  return [...new Set([x, linkedin])];
}

/** Where browsers post media uploads: the media bucket's S3 endpoint, addressed as presigned POSTs are (or the local stand-in). */
export function mediaUploadOrigin(): string {
  return new URL(browserUploadUrl(mediaBucket(), process.env.AWS_REGION ?? 'us-east-1')).origin;
}

/** Where thumbnails come from: the media base URL's origin (CloudFront on AWS). */
export function mediaImageOrigin(): string {
  return new URL(requireEnv(ENV.mediaBaseUrl)).origin;
}

export function listConnectedAccounts(): ListConnectedAccounts {
  listing ??= new ListConnectedAccounts({ workspaces: new DynamoDbWorkspaceStore(directoryTable()), accounts: new DynamoDbAccountStore(directoryTable()) });
  return listing;
}

export function connectAccountUseCase(): ConnectAccount {
  if (!connect) {
    const baseUrl = requireEnv(ENV.settingsBaseUrl);
    connect = new ConnectAccount({
      connectors: { x: xConnectorFromEnv(), linkedin: linkedinConnectorFromEnv() },
      attempts: new DynamoDbConnectAttemptStore(),
      connections: new DynamoDbAccountConnectionStore(directoryTable()),
      accounts: new DynamoDbAccountStore(directoryTable()),
      workspaces: new DynamoDbWorkspaceStore(directoryTable()),
      // Built at first use: starting a connect encrypts nothing, so its function has no key.
      cipher: lazyCipher(),
      redirectUri: (platform) => connectRedirectUri(baseUrl, platform),
    });
  }
  return connect;
}

export function mediaLibraryUseCase(): MediaLibrary {
  media ??= new MediaLibrary({ storage: new S3MediaUploads(), library: new DynamoDbMediaLibraryStore(directoryTable()), mediaBaseUrl: () => requireEnv(ENV.mediaBaseUrl) });
  return media;
}
