/**
 * The two secrets a local stack needs, made once per data directory and kept, so cursors and
 * encrypted platform tokens written by one run stay readable by the next:
 * - the cursor signing key (passed as CURSOR_SIGNING_KEY; on AWS it is a Secrets Manager secret);
 * - the token encryption key file (LOCAL_TOKEN_KEY_FILE; on AWS a KMS key).
 * Both files are readable by the owner only.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

export interface LocalSecrets {
  cursorSigningKey: string;
  tokenKeyFile: string;
}

async function readOrCreate(path: string, make: () => string): Promise<string> {
  try {
    const existing = (await readFile(path, 'utf8')).trim();
    if (existing !== '') return existing;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const value = make();
  // 'wx': if another process created it in between, keep theirs.
  try {
    await writeFile(path, `${value}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return (await readFile(path, 'utf8')).trim();
  }
  await chmod(path, 0o600);
  return value;
}

export async function ensureLocalSecrets(dataDir: string): Promise<LocalSecrets> {
  const dir = resolve(dataDir, 'keys');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const cursorSigningKey = await readOrCreate(join(dir, 'cursor-signing-key'), () => randomBytes(32).toString('base64url'));
  const tokenKeyFile = join(dir, 'token-key');
  // 32 random bytes, base64: one of the forms lib/store/token-cipher.ts reads.
  await readOrCreate(tokenKeyFile, () => randomBytes(32).toString('base64'));
  return { cursorSigningKey, tokenKeyFile };
}
