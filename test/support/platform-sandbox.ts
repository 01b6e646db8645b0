/**
 * For the platform adapter tests (test/platforms): sandbox accounts whose behaviour each test
 * picks, with the tokens the sandbox accepts for them, and the error a call failed with.
 */
import type { PublishablePlatform, SandboxBehaviour } from '../../lib/domain/model.js';
import { issueSandboxTokens } from '../../lib/domain/sandbox-tokens.js';
import { newId } from '../../lib/domain/ids.js';
import type { PlatformAccount } from '../../lib/use-cases/ports/platform-publisher.js';

export interface SandboxAccount {
  account: PlatformAccount;
  accessToken: string;
  refreshToken: string;
}

export class SandboxAccounts {
  private readonly behaviours = new Map<string, SandboxBehaviour>();

  /** For startSandboxPlatforms: an account answers as it was made; one not made here is ok. */
  readonly accountBehaviour = async (accountId: string): Promise<SandboxBehaviour> => this.behaviours.get(accountId) ?? 'ok';

  /** A new account of the platform that behaves as asked, with fresh sandbox tokens. */
  create(platform: PublishablePlatform, behaviour: SandboxBehaviour, fields: Omit<PlatformAccount, 'id'>): SandboxAccount {
    const id = newId('acct');
    this.behaviours.set(id, behaviour);
    const tokens = issueSandboxTokens(id, platform, new Date());
    return { account: { id, ...fields }, accessToken: tokens.accessToken, refreshToken: tokens.refreshToken };
  }
}

/** The error the call failed with; the test fails when the call succeeds. */
export async function caught(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the call to fail');
}
