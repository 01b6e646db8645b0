/**
 * Encrypts platform tokens at rest. The account id is bound into every ciphertext (KMS encryption
 * context on AWS, AES-GCM additional data locally), so a token copied onto another account's
 * credentials item does not decrypt.
 */
export interface TokenCipherContext {
  accountId: string;
}

export interface TokenCipher {
  encrypt(plain: string, context: TokenCipherContext): Promise<string>;
  decrypt(cipherText: string, context: TokenCipherContext): Promise<string>;
}
