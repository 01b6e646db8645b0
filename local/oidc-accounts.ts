/**
 * The local OpenID provider's accounts (local/oidc-provider.ts): e-mail + password, the password
 * kept only as a scrypt hash with its own random salt, persisted to DATA_DIR/oidc-accounts.json
 * (written whole to a temporary file, then renamed) so accounts survive restarts. Failed
 * sign-ins are limited per e-mail and client address (MAX_FAILURES in FAILURE_WINDOW_MS), as
 * Cognito limits them on AWS.
 */
import { randomBytes, randomUUID, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCallback) as (password: string, salt: Buffer, keyLength: number, options: { N: number; r: number; p: number }) => Promise<Buffer>;

export const MAX_FAILURES = 5;
export const FAILURE_WINDOW_MS = 15 * 60 * 1000;
export const MIN_PASSWORD_LENGTH = 10;
const SCRYPT = { N: 16384, r: 8, p: 1, keyLength: 32 };
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface LocalAccount {
  /** The OIDC `sub`. */
  id: string;
  email: string;
  /** scrypt$N$r$p$<salt b64>$<hash b64> */
  passwordHash: string;
  createdAt: string;
}

export class AccountInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AccountInputError';
  }
}

async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, SCRYPT.keyLength, SCRYPT);
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64'), hash.toString('base64')].join('$');
}

async function passwordMatches(password: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, { N: Number(n), r: Number(r), p: Number(p) });
  return timingSafeEqual(actual, expected);
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export class LocalAccounts {
  private readonly accounts = new Map<string, LocalAccount>();
  private readonly failures = new Map<string, number[]>();
  /** Writes one after another, so two sign-ups never interleave their files. */
  private writing: Promise<void> = Promise.resolve();
  /** Compared against when the e-mail is unknown, so a wrong e-mail takes as long as a wrong password. */
  private readonly decoyHash: Promise<string> = hashPassword(randomUUID());

  private constructor(private readonly file: string) {}

  static async open(file: string): Promise<LocalAccounts> {
    const store = new LocalAccounts(file);
    if (existsSync(file)) {
      const saved = JSON.parse(await readFile(file, 'utf8')) as { accounts?: LocalAccount[] };
      for (const account of saved.accounts ?? []) store.accounts.set(account.id, account);
    }
    return store;
  }

  byId(id: string): LocalAccount | undefined {
    return this.accounts.get(id);
  }

  byEmail(email: string): LocalAccount | undefined {
    const wanted = normalizeEmail(email);
    return [...this.accounts.values()].find((account) => account.email === wanted);
  }

  async create(email: string, password: string): Promise<LocalAccount> {
    const normalized = normalizeEmail(email);
    if (normalized.length > 254 || !EMAIL_PATTERN.test(normalized)) throw new AccountInputError('Enter an e-mail address like name@example.com.');
    if (password.length < MIN_PASSWORD_LENGTH || password.length > 200) {
      throw new AccountInputError(`Choose a password of at least ${MIN_PASSWORD_LENGTH} characters.`);
    }
    if (this.byEmail(normalized)) throw new AccountInputError('An account with this e-mail already exists. Sign in instead.');
    const account: LocalAccount = { id: randomUUID(), email: normalized, passwordHash: await hashPassword(password), createdAt: new Date().toISOString() };
    this.accounts.set(account.id, account);
    await this.save();
    return account;
  }

  /**
   * The account when the password is right. Throws when this e-mail and address have failed
   * MAX_FAILURES times in the window (checked first, so a locked-out guesser learns nothing).
   */
  async verify(email: string, password: string, address: string, now = Date.now()): Promise<LocalAccount | null> {
    const key = `${normalizeEmail(email)}|${address}`;
    const recent = (this.failures.get(key) ?? []).filter((at) => now - at < FAILURE_WINDOW_MS);
    if (recent.length >= MAX_FAILURES) {
      const waitMinutes = Math.ceil((FAILURE_WINDOW_MS - (now - (recent[0] ?? now))) / 60_000);
      throw new AccountInputError(`Too many failed sign-ins. Try again in ${waitMinutes} minute${waitMinutes === 1 ? '' : 's'}.`);
    }
    const account = this.byEmail(email);
    const ok = await passwordMatches(password, account?.passwordHash ?? (await this.decoyHash));
    if (account && ok) {
      this.failures.delete(key);
      return account;
    }
    recent.push(now);
    this.failures.set(key, recent);
    return null;
  }

  private save(): Promise<void> {
    this.writing = this.writing.then(async () => {
      const temporary = `${this.file}.${process.pid}.tmp`;
      await writeFile(temporary, `${JSON.stringify({ accounts: [...this.accounts.values()] }, null, 2)}\n`, { mode: 0o600 });
      await rename(temporary, this.file);
    });
    return this.writing;
  }
}
