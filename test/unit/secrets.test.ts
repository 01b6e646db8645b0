/**
 * lib/secrets.ts: the local value wins; otherwise Secrets Manager (mocked: it has no emulator
 * here) is asked once and the answer kept for the life of the process, while a failure is not kept.
 */
import { GetSecretValueCommand, InternalServiceError, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { clearCaches } from '@aws-lambda-powertools/parameters';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MissingConfigError } from '../../lib/config.js';
import { readSecret, SecretNotStringError } from '../../lib/secrets.js';

const VALUE = 'TEST_SECRET_VALUE';
const SECRET_ID = 'TEST_SECRET_ID';
const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:cursor-AbCdEf';

const secretsManager = mockClient(SecretsManagerClient);

beforeEach(() => {
  secretsManager.reset();
  clearCaches();
  vi.stubEnv('AWS_REGION', 'eu-west-1');
  vi.stubEnv(VALUE, '');
  vi.stubEnv(SECRET_ID, '');
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllEnvs();
});
afterAll(() => secretsManager.restore());

describe('readSecret', () => {
  it('returns the local value without asking Secrets Manager', async () => {
    vi.stubEnv(VALUE, 'local-signing-key');
    vi.stubEnv(SECRET_ID, ARN);
    await expect(readSecret(VALUE, SECRET_ID)).resolves.toBe('local-signing-key');
    expect(secretsManager.calls()).toHaveLength(0);
  });

  it('fetches the named secret once and keeps it for the life of the process', async () => {
    vi.stubEnv(SECRET_ID, ARN);
    secretsManager.on(GetSecretValueCommand, { SecretId: ARN }).resolves({ SecretString: 'from-secrets-manager' });
    await expect(readSecret(VALUE, SECRET_ID)).resolves.toBe('from-secrets-manager');
    // An hour later (Powertools' own default would have expired it after 5 s) it is still kept.
    vi.useFakeTimers({ now: Date.now() + 60 * 60 * 1000, toFake: ['Date'] });
    await expect(readSecret(VALUE, SECRET_ID)).resolves.toBe('from-secrets-manager');
    expect(secretsManager.commandCalls(GetSecretValueCommand)).toHaveLength(1);
  });

  it('does not keep a failure: the next call asks again', async () => {
    vi.stubEnv(SECRET_ID, ARN);
    secretsManager
      .on(GetSecretValueCommand)
      .rejectsOnce(new InternalServiceError({ message: 'try again', $metadata: {} }))
      .resolves({ SecretString: 'second-time' });
    await expect(readSecret(VALUE, SECRET_ID)).rejects.toThrow(/try again/);
    await expect(readSecret(VALUE, SECRET_ID)).resolves.toBe('second-time');
    expect(secretsManager.commandCalls(GetSecretValueCommand)).toHaveLength(2);
  });

  it('refuses a secret with no string value', async () => {
    vi.stubEnv(SECRET_ID, ARN);
    secretsManager.on(GetSecretValueCommand).resolves({ SecretBinary: new Uint8Array([1, 2, 3]) });
    await expect(readSecret(VALUE, SECRET_ID)).rejects.toBeInstanceOf(SecretNotStringError);
  });

  it('names both variables when neither is set', async () => {
    await expect(readSecret(VALUE, SECRET_ID)).rejects.toThrow(MissingConfigError);
    await expect(readSecret(VALUE, SECRET_ID)).rejects.toThrow(`${VALUE} or ${SECRET_ID}`);
    expect(secretsManager.calls()).toHaveLength(0);
  });
});
