import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DecryptCommand,
  EncryptCommand,
  InvalidCiphertextException,
  KMSClient,
  KMSInternalException,
  type DecryptCommandInput,
  type EncryptCommandInput,
} from '@aws-sdk/client-kms';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { MissingConfigError } from '../../lib/config.js';
import { DependencyError } from '../../lib/domain/errors.js';
import {
  KmsTokenCipher,
  LocalTokenCipher,
  TokenDecryptError,
  parseKeyFile,
  tokenCipherFromEnv,
} from '../../lib/store/token-cipher.js';

const alice = { accountId: 'acct_alice' };
const bob = { accountId: 'acct_bob' };
const token = 'sandbox.acct_alice.8fK2mQ9xLp3RvT7wZ1yB4nC6';

/** Flips one bit of the base64url-encoded segment at `index` of a dotted ciphertext. */
function flipBit(cipherText: string, index: number): string {
  const parts = cipherText.split('.');
  const bytes = Buffer.from(parts[index] ?? '', 'base64url');
  bytes[0] = (bytes[0] ?? 0) ^ 0x01;
  parts[index] = bytes.toString('base64url');
  return parts.join('.');
}

describe('LocalTokenCipher', () => {
  const cipher = new LocalTokenCipher(randomBytes(32));

  it('round-trips a token, including non-ASCII and empty text', async () => {
    for (const plain of [token, 'jeton-é-☃-🔑', '']) {
      expect(await cipher.decrypt(await cipher.encrypt(plain, alice), alice)).toBe(plain);
    }
  });

  it('uses a fresh IV per message: the same token never encrypts the same twice', async () => {
    const first = await cipher.encrypt(token, alice);
    const second = await cipher.encrypt(token, alice);
    expect(first).not.toBe(second);
    expect(first).not.toContain(token);
    expect(first.startsWith('local.v1.')).toBe(true);
  });

  it('refuses a ciphertext with any bit of IV or body altered', async () => {
    const sealed = await cipher.encrypt(token, alice);
    await expect(cipher.decrypt(flipBit(sealed, 2), alice)).rejects.toBeInstanceOf(TokenDecryptError);
    await expect(cipher.decrypt(flipBit(sealed, 3), alice)).rejects.toBeInstanceOf(TokenDecryptError);
  });

  it('refuses a truncated authentication tag', async () => {
    const sealed = await cipher.encrypt(token, alice);
    const parts = sealed.split('.');
    const body = Buffer.from(parts[3] ?? '', 'base64url');
    parts[3] = body.subarray(0, body.length - 1).toString('base64url');
    await expect(cipher.decrypt(parts.join('.'), alice)).rejects.toBeInstanceOf(TokenDecryptError);
  });

  it('refuses a ciphertext copied onto another account', async () => {
    const sealed = await cipher.encrypt(token, alice);
    await expect(cipher.decrypt(sealed, bob)).rejects.toMatchObject({ code: 'token_decrypt_failed' });
  });

  it('refuses a ciphertext sealed under another key', async () => {
    const other = new LocalTokenCipher(randomBytes(32));
    await expect(cipher.decrypt(await other.encrypt(token, alice), alice)).rejects.toBeInstanceOf(TokenDecryptError);
  });

  it('refuses text that is not one of its ciphertexts', async () => {
    for (const junk of ['', token, 'kms.v1.AAAA', 'local.v1.x', 'local.v2.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA']) {
      await expect(cipher.decrypt(junk, alice)).rejects.toBeInstanceOf(TokenDecryptError);
    }
  });

  it('needs a 32-byte key', () => {
    expect(() => new LocalTokenCipher(randomBytes(16))).toThrow(/32-byte/);
  });
});

describe('the local key file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'token-key-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const key = randomBytes(32);

  it.each([
    ['raw bytes', key],
    ['hex', Buffer.from(`${key.toString('hex')}\n`)],
    ['base64', Buffer.from(`${key.toString('base64')}\n`)],
  ])('is read as %s', async (_form, content) => {
    expect(parseKeyFile(content).equals(key)).toBe(true);
    const path = join(dir, `key-${createHash('sha1').update(content).digest('hex')}`);
    writeFileSync(path, content);
    // A cipher built from the file opens what a cipher built from the key sealed: same key.
    const sealed = await new LocalTokenCipher(key).encrypt(token, alice);
    expect(await LocalTokenCipher.fromFile(path).decrypt(sealed, alice)).toBe(token);
  });

  it('refuses a key of the wrong size', () => {
    expect(() => parseKeyFile(randomBytes(31))).toThrow(/32 bytes/);
    expect(() => parseKeyFile(Buffer.from(randomBytes(20).toString('hex')))).toThrow(/32 bytes/);
    expect(() => parseKeyFile(Buffer.from(randomBytes(33).toString('base64')))).toThrow(/32 bytes/);
  });
});

describe('KmsTokenCipher', () => {
  const kms = mockClient(KMSClient);
  const keyId = 'arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab';

  /**
   * Behaves like KMS for what matters here: a ciphertext opens only with the encryption context
   * it was made with, and an altered ciphertext does not open at all.
   */
  function fakeKms(): void {
    const sealed = new Map<string, { plain: Uint8Array; context: string }>();
    kms.on(EncryptCommand).callsFake((input: EncryptCommandInput) => {
      const blob = randomBytes(48);
      sealed.set(blob.toString('hex'), { plain: Buffer.from(input.Plaintext ?? []), context: JSON.stringify(input.EncryptionContext ?? {}) });
      return { CiphertextBlob: blob, KeyId: input.KeyId };
    });
    kms.on(DecryptCommand).callsFake((input: DecryptCommandInput) => {
      const entry = sealed.get(Buffer.from(input.CiphertextBlob ?? []).toString('hex'));
      if (!entry || entry.context !== JSON.stringify(input.EncryptionContext ?? {})) {
        throw new InvalidCiphertextException({ message: 'InvalidCiphertextException', $metadata: {} });
      }
      return { Plaintext: entry.plain, KeyId: input.KeyId };
    });
  }

  beforeEach(() => {
    kms.reset();
    fakeKms();
  });

  it('round-trips a token through KMS', async () => {
    const cipher = new KmsTokenCipher(keyId, new KMSClient({ region: 'eu-west-1' }));
    const sealed = await cipher.encrypt(token, alice);
    expect(sealed.startsWith('kms.v1.')).toBe(true);
    expect(sealed).not.toContain(token);
    expect(await cipher.decrypt(sealed, alice)).toBe(token);
  });

  it('names the key and binds the account id as encryption context on both calls', async () => {
    const cipher = new KmsTokenCipher(keyId, new KMSClient({ region: 'eu-west-1' }));
    await cipher.decrypt(await cipher.encrypt(token, alice), alice);
    const encrypt = kms.commandCalls(EncryptCommand)[0]?.args[0].input;
    expect(encrypt?.KeyId).toBe(keyId);
    expect(encrypt?.EncryptionContext).toEqual({ accountId: 'acct_alice' });
    expect(Buffer.from(encrypt?.Plaintext ?? []).toString('utf8')).toBe(token);
    const decrypt = kms.commandCalls(DecryptCommand)[0]?.args[0].input;
    expect(decrypt?.KeyId).toBe(keyId);
    expect(decrypt?.EncryptionContext).toEqual({ accountId: 'acct_alice' });
  });

  it('refuses a ciphertext copied onto another account', async () => {
    const cipher = new KmsTokenCipher(keyId, new KMSClient({ region: 'eu-west-1' }));
    const sealed = await cipher.encrypt(token, alice);
    await expect(cipher.decrypt(sealed, bob)).rejects.toBeInstanceOf(TokenDecryptError);
  });

  it('refuses an altered ciphertext and one from the local cipher', async () => {
    const cipher = new KmsTokenCipher(keyId, new KMSClient({ region: 'eu-west-1' }));
    const sealed = await cipher.encrypt(token, alice);
    const blob = Buffer.from(sealed.slice('kms.v1.'.length), 'base64url');
    blob[5] = (blob[5] ?? 0) ^ 0x80;
    await expect(cipher.decrypt(`kms.v1.${blob.toString('base64url')}`, alice)).rejects.toBeInstanceOf(TokenDecryptError);
    const local = await new LocalTokenCipher(randomBytes(32)).encrypt(token, alice);
    await expect(cipher.decrypt(local, alice)).rejects.toBeInstanceOf(TokenDecryptError);
  });

  it('reports a KMS outage as a dependency failure, not as a bad token', async () => {
    kms.reset();
    const outage = new KMSInternalException({ message: 'internal', $metadata: {} });
    kms.on(EncryptCommand).rejects(outage).on(DecryptCommand).rejects(outage);
    const cipher = new KmsTokenCipher(keyId, new KMSClient({ region: 'eu-west-1' }));
    await expect(cipher.encrypt(token, alice)).rejects.toBeInstanceOf(DependencyError);
    await expect(cipher.decrypt('kms.v1.AAAA', alice)).rejects.toBeInstanceOf(DependencyError);
  });
});

describe('tokenCipherFromEnv', () => {
  const dir = mkdtempSync(join(tmpdir(), 'token-env-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('uses KMS when TOKEN_KMS_KEY_ID is set, even beside a key file', () => {
    const keyFile = join(dir, 'key');
    writeFileSync(keyFile, randomBytes(32));
    expect(tokenCipherFromEnv({ TOKEN_KMS_KEY_ID: 'alias/tokens', LOCAL_TOKEN_KEY_FILE: keyFile })).toBeInstanceOf(KmsTokenCipher);
  });

  it('uses the local key file otherwise', () => {
    const keyFile = join(dir, 'key2');
    writeFileSync(keyFile, randomBytes(32));
    expect(tokenCipherFromEnv({ LOCAL_TOKEN_KEY_FILE: keyFile })).toBeInstanceOf(LocalTokenCipher);
  });

  it('fails loudly when neither is set', () => {
    expect(() => tokenCipherFromEnv({})).toThrow(MissingConfigError);
  });
});
