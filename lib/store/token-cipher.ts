/**
 * Platform tokens are encrypted before they reach the directory table, so a table export or a
 * stray log of an item shows nothing usable.
 *
 * - AWS: KMS Encrypt/Decrypt under TOKEN_KMS_KEY_ID. The account id goes into the encryption
 *   context, so a ciphertext copied onto another account's credentials item does not decrypt,
 *   and CloudTrail records which account each decrypt was for.
 * - Local stack: AES-256-GCM with a 32-byte key from the file at LOCAL_TOKEN_KEY_FILE (KMS has no
 *   emulator). The account id is the GCM additional authenticated data, which gives the same
 *   binding as the encryption context.
 *
 * Ciphertexts carry a prefix naming the scheme, so a value written by one cipher and read by the
 * other fails with a clear message instead of a confusing decrypt error.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { DecryptCommand, EncryptCommand, InvalidCiphertextException, KMSClient } from '@aws-sdk/client-kms';
import { ENV, MissingConfigError } from '../config.js';
import { DependencyError } from '../domain/errors.js';
import type { TokenCipher, TokenCipherContext } from '../use-cases/ports/token-cipher.js';

/** A ciphertext that does not decrypt under this key and account: tampered, copied, or from another key. */
export class TokenDecryptError extends Error {
  readonly code = 'token_decrypt_failed';
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'TokenDecryptError';
  }
}

const LOCAL_PREFIX = 'local.v1';
const KMS_PREFIX = 'kms.v1';
const KEY_BYTES = 32;
/** 96-bit IV: GCM's native size; random per message (a key here encrypts far fewer than 2^32 messages). */
const IV_BYTES = 12;
const TAG_BYTES = 16;

function additionalData(context: TokenCipherContext): Buffer {
  return Buffer.from(`account:${context.accountId}`, 'utf8');
}

/**
 * Reads a 32-byte key written as raw bytes, 64 hex characters or base64 (trailing new line
 * allowed), so the key file can be made with `openssl rand` in any of its output forms.
 */
export function parseKeyFile(content: Buffer): Buffer {
  const text = content.toString('latin1').trim();
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}={0,1}$/.test(text)) {
    const decoded = Buffer.from(text, 'base64');
    if (decoded.length === KEY_BYTES) return decoded;
  }
  if (content.length === KEY_BYTES) return Buffer.from(content);
  throw new Error(`Token key must be ${KEY_BYTES} bytes (raw, hex or base64); got ${content.length} bytes of something else`);
}

export class LocalTokenCipher implements TokenCipher {
  private readonly key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== KEY_BYTES) throw new Error(`LocalTokenCipher needs a ${KEY_BYTES}-byte key, got ${key.length}`);
    this.key = Buffer.from(key);
  }

  static fromFile(path: string): LocalTokenCipher {
    return new LocalTokenCipher(parseKeyFile(readFileSync(path)));
  }

  async encrypt(plain: string, context: TokenCipherContext): Promise<string> {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(additionalData(context));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${LOCAL_PREFIX}.${iv.toString('base64url')}.${body.toString('base64url')}`;
  }

  async decrypt(cipherText: string, context: TokenCipherContext): Promise<string> {
    const parts = cipherText.split('.');
    if (parts.length !== 4 || `${parts[0]}.${parts[1]}` !== LOCAL_PREFIX) {
      throw new TokenDecryptError(`Not a ${LOCAL_PREFIX} token ciphertext`);
    }
    const iv = Buffer.from(parts[2] ?? '', 'base64url');
    const body = Buffer.from(parts[3] ?? '', 'base64url');
    if (iv.length !== IV_BYTES || body.length < TAG_BYTES) throw new TokenDecryptError('Token ciphertext is truncated');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(additionalData(context));
      decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
      return Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch (error) {
      // GCM authentication failed: altered ciphertext, another account's token, or another key.
      throw new TokenDecryptError(`Token ciphertext does not authenticate for account ${context.accountId}`, { cause: error });
    }
  }
}

/** Built at module scope on first use, then reused for the life of the process. */
let kmsClient: KMSClient | undefined;

export class KmsTokenCipher implements TokenCipher {
  private readonly client: KMSClient;

  constructor(
    private readonly keyId: string,
    client?: KMSClient,
  ) {
    this.client = client ?? (kmsClient ??= new KMSClient({}));
  }

  async encrypt(plain: string, context: TokenCipherContext): Promise<string> {
    let blob: Uint8Array | undefined;
    try {
      const out = await this.client.send(
        new EncryptCommand({
          KeyId: this.keyId,
          Plaintext: Buffer.from(plain, 'utf8'),
          EncryptionContext: { accountId: context.accountId },
        }),
      );
      blob = out.CiphertextBlob;
    } catch (error) {
      throw new DependencyError('KMS Encrypt failed', { cause: error });
    }
    if (!blob) throw new DependencyError('KMS Encrypt returned no ciphertext');
    return `${KMS_PREFIX}.${Buffer.from(blob).toString('base64url')}`;
  }

  async decrypt(cipherText: string, context: TokenCipherContext): Promise<string> {
    if (!cipherText.startsWith(`${KMS_PREFIX}.`)) throw new TokenDecryptError(`Not a ${KMS_PREFIX} token ciphertext`);
    const blob = Buffer.from(cipherText.slice(KMS_PREFIX.length + 1), 'base64url');
    try {
      const out = await this.client.send(
        new DecryptCommand({
          // Naming the key means a ciphertext under any other key is refused, not silently accepted.
          KeyId: this.keyId,
          CiphertextBlob: blob,
          EncryptionContext: { accountId: context.accountId },
        }),
      );
      if (!out.Plaintext) throw new DependencyError('KMS Decrypt returned no plaintext');
      return Buffer.from(out.Plaintext).toString('utf8');
    } catch (error) {
      if (error instanceof DependencyError) throw error;
      // KMS answers a wrong context or altered blob with InvalidCiphertextException.
      if (error instanceof InvalidCiphertextException) {
        throw new TokenDecryptError(`Token ciphertext does not decrypt for account ${context.accountId}`, { cause: error });
      }
      throw new DependencyError('KMS Decrypt failed', { cause: error });
    }
  }
}

/** KMS when TOKEN_KMS_KEY_ID is set (AWS), else the local key file (local stack and tests). */
export function tokenCipherFromEnv(env: NodeJS.ProcessEnv = process.env): TokenCipher {
  const kmsKeyId = env[ENV.tokenKmsKeyId];
  if (kmsKeyId) return new KmsTokenCipher(kmsKeyId);
  const keyFile = env[ENV.localTokenKeyFile];
  if (keyFile) return LocalTokenCipher.fromFile(keyFile);
  throw new MissingConfigError(`${ENV.tokenKmsKeyId} or ${ENV.localTokenKeyFile}`);
}
