/**
 * Secrets reach the code one of two ways: the local stack sets the value itself in an
 * environment variable (it owns the key files under DATA_DIR/keys, local/local-secrets.ts); on AWS
 * only the id of a Secrets Manager secret is in the environment, and Powertools' parameters
 * utility fetches the value and keeps it in its cache. So no secret is ever written into the
 * CloudFormation template or a Lambda's configuration.
 */
import { getSecret } from '@aws-lambda-powertools/parameters/secrets';
import { MissingConfigError } from './config.js';

/**
 * How long a fetched value is kept: longer than any execution environment lives, so a secret is
 * read once per cold start (docs/deploy.md, "Connect the platform apps", says how to make workers
 * read a new value). Powertools' own default (5 s) would call Secrets Manager on nearly every
 * request. A failed fetch is not cached: the next request tries again.
 */
const SECRET_MAX_AGE_SECONDS = 365 * 24 * 60 * 60;

export class SecretNotStringError extends Error {
  readonly code = 'secret_not_string';
  constructor(secretId: string) {
    super(`Secret ${secretId} has no string value`);
    this.name = 'SecretNotStringError';
  }
}

export async function readSecret(valueVar: string, secretIdVar: string): Promise<string> {
  const direct = process.env[valueVar];
  if (direct !== undefined && direct !== '') return direct;
  const secretId = process.env[secretIdVar];
  if (secretId === undefined || secretId === '') throw new MissingConfigError(`${valueVar} or ${secretIdVar}`);
  const value = await getSecret(secretId, { maxAge: SECRET_MAX_AGE_SECONDS });
  if (typeof value !== 'string') throw new SecretNotStringError(secretId);
  return value;
}
