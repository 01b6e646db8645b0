/**
 * Secrets reach the code one of two ways: the local stack sets the value itself in an
 * environment variable (it owns the key files under DATA_DIR); on AWS only the id of a Secrets
 * Manager secret is in the environment, and the value is fetched once per cold start. So no
 * secret is ever written into the CloudFormation template or a Lambda's configuration.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { MissingConfigError } from './config.js';

let client: SecretsManagerClient | undefined;
const cache = new Map<string, Promise<string>>();

export function readSecret(valueVar: string, secretIdVar: string): Promise<string> {
  const direct = process.env[valueVar];
  if (direct !== undefined && direct !== '') return Promise.resolve(direct);
  const secretId = process.env[secretIdVar];
  if (secretId === undefined || secretId === '') throw new MissingConfigError(`${valueVar} or ${secretIdVar}`);
  let pending = cache.get(secretId);
  if (!pending) {
    client ??= new SecretsManagerClient({});
    pending = client.send(new GetSecretValueCommand({ SecretId: secretId })).then((out) => {
      if (!out.SecretString) throw new Error(`Secret ${secretId} has no string value`);
      return out.SecretString;
    });
    // A failed fetch must not be cached forever: the next request tries again.
    pending.catch(() => cache.delete(secretId));
    cache.set(secretId, pending);
  }
  return pending;
}
