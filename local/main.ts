/**
 * `npm start`: the whole service on this machine (see local/stack.ts for what emulates
 * what). PORT (default 3000) and DATA_DIR (default .data) configure it; everything it keeps
 * (DynamoDB data, schedules, media, keys) lives under DATA_DIR and survives restarts.
 *
 * The first start with an empty DATA_DIR seeds a demo user and prints its API key, the only time
 * the key is ever shown (only its hash is stored).
 */
// First: the switches for runtime notices must be set before any AWS SDK client exists.
import './runtime-notices.js';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { numberEnv, optionalEnv } from '../lib/config.js';
import { startLocalStack, type LocalStack } from './stack.js';

interface DemoRecord {
  userId: string;
  workspaceId: string;
  accountIds: Record<string, string>;
  seededAt: string;
  /**
   * The demo user's settings sign-in at the local OpenID provider. Kept here in clear (this file
   * is mode 600 and local-only) so every start can print it; the provider stores only its hash.
   */
  login?: { email: string; password: string; issuer: string };
}

/**
 * Gives the demo user a login at the local OpenID provider, linked to the demo user, once per
 * issuer (the provider's address is part of the identity, so a new OIDC_PORT links again).
 */
async function ensureDemoLogin(demo: DemoRecord, stack: LocalStack): Promise<DemoRecord['login']> {
  if (demo.login && demo.login.issuer === stack.oidc.issuer && stack.oidc.accounts.byEmail(demo.login.email)) return demo.login;
  const { DynamoDbIdentityStore } = await import('../lib/store/dynamodb-identity-store.js');
  const email = 'demo@example.com';
  const password = demo.login?.password ?? `demo-${randomBytes(9).toString('base64url')}`;
  const account = stack.oidc.accounts.byEmail(email) ?? (await stack.oidc.accounts.create(email, password));
  await new DynamoDbIdentityStore({ tableName: stack.tables.directory }).linkIdentity({ issuer: stack.oidc.issuer, subject: account.id, email }, demo.userId);
  return { email, password, issuer: stack.oidc.issuer };
}

/** What the banner shows under the settings address: how to get in. */
function signInLine(login: DemoRecord['login']): string {
  return login ? `                 sign in as ${login.email} / ${login.password}, or sign up there` : '                 sign up there';
}

interface DemoLines {
  signIn: string;
  /** Below the addresses: the key (first start only) and how to use or make one. */
  key: string[];
}

const DEMO_FILE = 'demo.json';

async function seedDemoOnce(dataDir: string, stack: LocalStack): Promise<DemoLines> {
  const demoFile = join(dataDir, DEMO_FILE);
  if (existsSync(demoFile)) {
    const demo = JSON.parse(await readFile(demoFile, 'utf8')) as DemoRecord;
    const login = await ensureDemoLogin(demo, stack);
    if (login !== demo.login) await writeFile(demoFile, `${JSON.stringify({ ...demo, login }, null, 2)}\n`, { mode: 0o600 });
    return {
      signIn: signInLine(login),
      key: [
        `The demo user's API key was shown at the first start and is not stored. A new key: Settings, API keys,`,
        `or npm run --silent admin -- key create --user ${demo.userId}`,
      ],
    };
  }
  // Imported only now: these modules are shared with the handlers and read configuration that
  // the stack has just put in the environment.
  const [{ seedDemo }, { directoryStores }, { tokenCipherFromEnv }] = await Promise.all([
    import('./seed-demo.js'),
    import('../lib/store/directory-stores.js'),
    import('../lib/store/token-cipher.js'),
  ]);
  const seed = await seedDemo({
    directory: directoryStores({ tableName: stack.tables.directory }),
    cipher: tokenCipherFromEnv(),
  });
  const record: DemoRecord = {
    userId: seed.userId,
    workspaceId: seed.workspaceId,
    accountIds: seed.accountIds,
    seededAt: new Date().toISOString(),
  };
  record.login = await ensureDemoLogin(record, stack);
  // Written after the seed succeeded, so a failed first start seeds again next time.
  await writeFile(demoFile, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  return {
    signIn: signInLine(record.login),
    key: [
      `The demo user's API key (shown only now, keep it): ${seed.apiKey}`,
      `  curl -s -H "Authorization: Bearer ${seed.apiKey}" ${stack.baseUrl}/accounts`,
    ],
  };
}

async function main(): Promise<void> {
  const port = numberEnv('PORT', 3000);
  const dataDir = resolve(optionalEnv('DATA_DIR', '.data'));
  // Nothing is printed before the banner: a line there would sit above it for the seconds the
  // start takes, and what goes wrong is printed as an error anyway.
  // The sandbox platforms run as a process of their own, their record under DATA_DIR/sandbox.
  // The provider's address is part of every identity it issues: a fixed port keeps sign-ins valid across restarts.
  // PORT=0 (any free port) gives the provider any free port too.
  const stack = await startLocalStack({ port, dataDir, sandbox: 'process', oidcPort: numberEnv('OIDC_PORT', port === 0 ? 0 : port + 1) });

  let shuttingDown = false;
  const shutdown = (signal: NodeJS.Signals): void => {
    if (shuttingDown) {
      // A second Ctrl+C: stop waiting. The exit handlers still kill DynamoDB Local.
      process.exit(130);
    }
    shuttingDown = true;
    console.log(`\n${signal}: stopping the local stack ...`);
    stack.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('Stopping the local stack failed', error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);

  let demoLines: DemoLines;
  try {
    demoLines = await seedDemoOnce(dataDir, stack);
  } catch (error) {
    await stack.stop();
    throw error;
  }
  console.log(
    [
      'Social publishing API (local stack) is running.',
      '',
      `  Settings:      ${stack.settingsUrl}`,
      demoLines.signIn,
      `  API base URL:  ${stack.baseUrl}`,
      `  API reference: ${stack.origin}/docs`,
      `  MCP server:    ${stack.origin}/mcp   (add it to an MCP client; it signs you in through the browser)`,
      '',
      ...demoLines.key,
      '',
      `Data in ${dataDir}.${stack.sandboxOrigin ? ` What X and LinkedIn received: ${stack.sandboxOrigin}/sandbox/record` : ''}`,
      'Press Ctrl+C to stop.',
    ].join('\n'),
  );
}

main().catch((error: unknown) => {
  console.error('The local stack could not start:', error);
  process.exit(1);
});
