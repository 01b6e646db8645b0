/**
 * The admin CLI: the stand-in for account settings (users, workspaces, connected accounts, API
 * keys, media library). `npm run --silent admin -- <command> [flags]`.
 *
 * Every command prints exactly one JSON object on stdout, so scripts can pipe it to `jq`; any
 * failure prints a message on stderr and exits 1, and prints nothing on stdout.
 *
 * Target: by default the data of a running `npm start`, found through DATA_DIR/stack.json
 * (DATA_DIR defaults to .data). With `--aws` (or ADMIN_TARGET=aws) it works on deployed tables
 * instead, taking DIRECTORY_TABLE, TOKEN_KMS_KEY_ID, MEDIA_BUCKET, MEDIA_BASE_URL from the
 * environment and credentials from the default AWS chain.
 */
import { readFile, stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ENV, MissingConfigError, requireEnv } from '../lib/config.js';
import { parseApiKey } from '../lib/domain/api-key.js';
import { DirectoryRecordExistsError, DirectoryRecordNotFoundError, ProvisioningInputError } from '../lib/domain/directory-errors.js';
import {
  ACCOUNT_TYPES,
  SANDBOX_BEHAVIOURS,
  SCOPES,
  TOKEN_HEALTH,
  X_SUBSCRIPTIONS,
  type XSubscription,
  type AccountType,
  type SandboxBehaviour,
  type Scope,
  type TokenHealth,
  type User,
} from '../lib/domain/model.js';
import { accountView } from '../lib/domain/views/account-view.js';
import { BACKFILL_DEFAULT_LIMIT, BACKFILL_MAX_LIMIT, type BackfillMetrics } from '../lib/use-cases/admin/backfill-metrics.js';
import type { Provisioning } from '../lib/use-cases/admin/provisioning.js';
import { applyStackEnvironment, readStackFile, StackFileError } from './admin-target.js';

/** A mistake in the command line: the message says what to fix. */
export class AdminUsageError extends Error {
  readonly code = 'admin_usage';
  constructor(message: string) {
    super(message);
    this.name = 'AdminUsageError';
  }
}

export const USAGE = `Usage: npm run --silent admin -- [--aws] <command> [flags]

  user create --email E [--quota N] [--inactive]
  user update --user U [--active true|false] [--quota N]
  workspace create --user U --name N
  account connect --workspace W --platform P --handle H [--name N]
                  [--account-type ${ACCOUNT_TYPES.join('|')}]
                  [--token-health ${TOKEN_HEALTH.join('|')}]
                  [--sandbox ${SANDBOX_BEHAVIOURS.join('|')}]
                  [--x-subscription ${X_SUBSCRIPTIONS.join('|')}]
                  [--token-expires-in-days N] [--no-refresh-token]
  account update --account A [--token-health V] [--sandbox B] [--active true|false] [--name N]
                 [--x-subscription S] [--token-expires-in-days N] [--no-refresh-token]
  key create --user U [--scopes ${SCOPES.join(',')}]
  key revoke --key <key id>
  media add --user U --file PATH [--content-type MIME] [--duration-seconds S]
  metrics backfill --user U [--limit N] [--cursor C]
                   (schedules the collection of the user's posts published before metrics were
                   collected; at most N posts read a run, default ${BACKFILL_DEFAULT_LIMIT}; run again with the
                   cursor it prints until the cursor is null)

Prints one JSON object on stdout. Targets the running local stack (DATA_DIR/stack.json, DATA_DIR
defaults to .data) unless --aws or ADMIN_TARGET=aws is given.`;

type FlagSpec = Record<string, { type: 'string' | 'boolean' }>;
type Flags = Record<string, string | boolean | undefined>;

interface Command {
  flags: FlagSpec;
  required: string[];
  run(flags: Flags, context: CommandContext): Promise<object>;
}

interface CommandContext {
  provisioning: Provisioning;
  /** Built on first use: only `metrics backfill` needs the posts table. */
  metricsBackfill: () => Promise<BackfillMetrics>;
}

function str(flags: Flags, name: string): string | undefined {
  const value = flags[name];
  return typeof value === 'string' ? value : undefined;
}

function requiredStr(flags: Flags, name: string): string {
  const value = str(flags, name);
  if (value === undefined || value.trim() === '') throw new AdminUsageError(`--${name} needs a value`);
  return value.trim();
}

function wholeNumber(flags: Flags, name: string): number | undefined {
  const value = str(flags, name);
  if (value === undefined) return undefined;
  if (!/^\d{1,10}$/.test(value)) throw new AdminUsageError(`--${name} must be a whole number; got "${value}"`);
  return Number(value);
}

function positiveNumber(flags: Flags, name: string): number | undefined {
  const value = str(flags, name);
  if (value === undefined) return undefined;
  if (!/^\d{1,6}(\.\d{1,3})?$/.test(value) || Number(value) <= 0) {
    throw new AdminUsageError(`--${name} must be a positive number of seconds; got "${value}"`);
  }
  return Number(value);
}

function bool(flags: Flags, name: string): boolean | undefined {
  const value = str(flags, name);
  if (value === undefined) return undefined;
  if (value !== 'true' && value !== 'false') throw new AdminUsageError(`--${name} must be true or false; got "${value}"`);
  return value === 'true';
}

function enumFlag<T extends string>(flags: Flags, name: string, allowed: readonly T[]): T | undefined {
  const value = str(flags, name);
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new AdminUsageError(`--${name} must be one of ${allowed.join(', ')}; got "${value}"`);
  }
  return value as T;
}

function scopesFlag(flags: Flags): Scope[] | undefined {
  const value = str(flags, 'scopes');
  if (value === undefined) return undefined;
  const scopes = value.split(',').map((scope) => scope.trim()).filter((scope) => scope !== '');
  if (scopes.length === 0) throw new AdminUsageError('--scopes must name at least one scope');
  for (const scope of scopes) {
    if (!(SCOPES as readonly string[]).includes(scope)) {
      throw new AdminUsageError(`--scopes: unknown scope "${scope}"; scopes are ${SCOPES.join(', ')}`);
    }
  }
  return scopes as Scope[];
}

function userView(user: User): object {
  return {
    object: 'user',
    id: user.id,
    email: user.email,
    active: user.active,
    monthlyPostAllowance: user.monthlyPostAllowance,
    workspaceIds: user.workspaceIds,
    createdAt: user.createdAt,
  };
}

const COMMANDS: Record<string, Command> = {
  'user create': {
    flags: { email: { type: 'string' }, quota: { type: 'string' }, inactive: { type: 'boolean' } },
    required: ['email'],
    async run(flags, { provisioning }) {
      const user = await provisioning.createUser({
        email: requiredStr(flags, 'email'),
        monthlyPostAllowance: wholeNumber(flags, 'quota'),
        active: flags.inactive !== true,
      });
      return { id: user.id };
    },
  },
  'user update': {
    flags: { user: { type: 'string' }, active: { type: 'string' }, quota: { type: 'string' } },
    required: ['user'],
    async run(flags, { provisioning }) {
      const user = await provisioning.updateUser(requiredStr(flags, 'user'), {
        active: bool(flags, 'active'),
        monthlyPostAllowance: wholeNumber(flags, 'quota'),
      });
      return userView(user);
    },
  },
  'workspace create': {
    flags: { user: { type: 'string' }, name: { type: 'string' } },
    required: ['user', 'name'],
    async run(flags, { provisioning }) {
      const workspace = await provisioning.createWorkspace({ userId: requiredStr(flags, 'user'), name: requiredStr(flags, 'name') });
      return { id: workspace.id };
    },
  },
  'account connect': {
    flags: {
      workspace: { type: 'string' },
      platform: { type: 'string' },
      handle: { type: 'string' },
      name: { type: 'string' },
      'account-type': { type: 'string' },
      'token-health': { type: 'string' },
      sandbox: { type: 'string' },
      'x-subscription': { type: 'string' },
      'token-expires-in-days': { type: 'string' },
      'no-refresh-token': { type: 'boolean' },
    },
    required: ['workspace', 'platform', 'handle'],
    async run(flags, { provisioning }) {
      const account = await provisioning.connectAccount({
        workspaceId: requiredStr(flags, 'workspace'),
        platform: requiredStr(flags, 'platform'),
        handle: requiredStr(flags, 'handle'),
        name: str(flags, 'name'),
        accountType: enumFlag<AccountType>(flags, 'account-type', ACCOUNT_TYPES),
        tokenHealth: enumFlag<TokenHealth>(flags, 'token-health', TOKEN_HEALTH),
        sandbox: enumFlag<SandboxBehaviour>(flags, 'sandbox', SANDBOX_BEHAVIOURS),
        xSubscription: enumFlag<XSubscription>(flags, 'x-subscription', X_SUBSCRIPTIONS),
        tokenExpiresInDays: wholeNumber(flags, 'token-expires-in-days'),
        noRefreshToken: flags['no-refresh-token'] === true ? true : undefined,
      });
      return accountView(account);
    },
  },
  'account update': {
    flags: {
      account: { type: 'string' },
      'token-health': { type: 'string' },
      sandbox: { type: 'string' },
      active: { type: 'string' },
      name: { type: 'string' },
      'x-subscription': { type: 'string' },
      'token-expires-in-days': { type: 'string' },
      'no-refresh-token': { type: 'boolean' },
    },
    required: ['account'],
    async run(flags, { provisioning }) {
      const account = await provisioning.updateAccount(requiredStr(flags, 'account'), {
        tokenHealth: enumFlag<TokenHealth>(flags, 'token-health', TOKEN_HEALTH),
        sandbox: enumFlag<SandboxBehaviour>(flags, 'sandbox', SANDBOX_BEHAVIOURS),
        xSubscription: enumFlag<XSubscription>(flags, 'x-subscription', X_SUBSCRIPTIONS),
        tokenExpiresInDays: wholeNumber(flags, 'token-expires-in-days'),
        noRefreshToken: flags['no-refresh-token'] === true ? true : undefined,
        active: bool(flags, 'active'),
        name: str(flags, 'name'),
      });
      return accountView(account);
    },
  },
  'key create': {
    flags: { user: { type: 'string' }, scopes: { type: 'string' } },
    required: ['user'],
    async run(flags, { provisioning }) {
      const created = await provisioning.createApiKey({ userId: requiredStr(flags, 'user'), scopes: scopesFlag(flags) });
      return { id: created.record.id, key: created.key, scopes: created.record.scopes };
    },
  },
  'key revoke': {
    flags: { key: { type: 'string' } },
    required: ['key'],
    async run(flags, { provisioning }) {
      const given = requiredStr(flags, 'key');
      // The key id is what settings show; a full key pasted by mistake is reduced to its id.
      const keyId = parseApiKey(given)?.id ?? given;
      return provisioning.revokeApiKey(keyId);
    },
  },
  'media add': {
    flags: {
      user: { type: 'string' },
      file: { type: 'string' },
      'content-type': { type: 'string' },
      'duration-seconds': { type: 'string' },
    },
    required: ['user', 'file'],
    async run(flags, { provisioning }) {
      const path = requiredStr(flags, 'file');
      const cannotRead = (error: unknown) => new AdminUsageError(`--file: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
      // Type and size first: a file over its type's limit is refused before it is read.
      const sizeBytes = await stat(path).then((stats) => stats.size, (error: unknown) => { throw cannotRead(error); });
      const contentType = str(flags, 'content-type');
      provisioning.checkMediaFile({ fileName: basename(path), sizeBytes, ...(contentType !== undefined ? { contentType } : {}) });
      let body: Buffer;
      try {
        body = await readFile(path);
      } catch (error) {
        throw cannotRead(error);
      }
      const item = await provisioning.addMedia({
        userId: requiredStr(flags, 'user'),
        fileName: basename(path),
        body,
        contentType: str(flags, 'content-type'),
        durationSeconds: positiveNumber(flags, 'duration-seconds'),
      });
      return { id: item.id, url: item.url, contentType: item.contentType, ...(item.pageCount !== undefined && item.pageCount !== null ? { pageCount: item.pageCount } : {}) };
    },
  },
  'metrics backfill': {
    flags: { user: { type: 'string' }, limit: { type: 'string' }, cursor: { type: 'string' } },
    required: ['user'],
    async run(flags, { metricsBackfill }) {
      const limit = wholeNumber(flags, 'limit') ?? BACKFILL_DEFAULT_LIMIT;
      if (limit < 1 || limit > BACKFILL_MAX_LIMIT) throw new AdminUsageError(`--limit must be from 1 to ${BACKFILL_MAX_LIMIT}; got ${limit}`);
      const cursor = str(flags, 'cursor');
      // A cursor is the last listSk read (`<createdAt>#<post id>`), as the previous run printed it.
      if (cursor !== undefined && !/^\d{4}-\d\d-\d\dT[0-9:.]+Z#post_[A-Za-z0-9]+$/.test(cursor)) {
        throw new AdminUsageError(`--cursor must be the cursor a previous run printed; got "${cursor}"`);
      }
      return (await metricsBackfill()).run({ userId: requiredStr(flags, 'user'), cursor: cursor ?? null, limit });
    },
  },
};

export interface ParsedCommand {
  name: string;
  command: Command;
  flags: Flags;
  aws: boolean;
}

export function parseCommandLine(argv: string[], env: NodeJS.ProcessEnv = process.env): ParsedCommand {
  const args = [...argv];
  let aws = env.ADMIN_TARGET === 'aws';
  const awsAt = args.indexOf('--aws');
  if (awsAt >= 0) {
    aws = true;
    args.splice(awsAt, 1);
  }
  const [group, action, ...rest] = args;
  if (group === undefined || group.startsWith('-')) throw new AdminUsageError(`A command is needed.\n\n${USAGE}`);
  const name = `${group} ${action ?? ''}`.trim();
  const command = COMMANDS[name];
  if (!command) throw new AdminUsageError(`Unknown command "${name}".\n\n${USAGE}`);
  let values: Flags;
  try {
    ({ values } = parseArgs({ args: rest, options: command.flags, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new AdminUsageError(`${name}: ${(error as Error).message}`);
  }
  for (const flag of command.required) {
    if (values[flag] === undefined) throw new AdminUsageError(`${name}: --${flag} is required`);
  }
  return { name, command, flags: values, aws };
}

async function buildProvisioning(aws: boolean, needsMedia: boolean): Promise<{ provisioning: Provisioning; target: string }> {
  const env = process.env;
  let target = 'AWS';
  if (!aws) {
    const dataDir = resolve(env.DATA_DIR || '.data');
    const stack = await readStackFile(dataDir);
    applyStackEnvironment(stack, env);
    target = `the local stack (${stack.dynamodbEndpoint})`;
  }
  // Imported only now: the SDK clients must see the environment the target chose.
  const [{ directoryStores }, { tokenCipherFromEnv }, { S3MediaObjectWriter }, provisioningModule] = await Promise.all([
    import('../lib/store/directory-stores.js'),
    import('../lib/store/token-cipher.js'),
    import('../lib/store/s3-media-object-writer.js'),
    import('../lib/use-cases/admin/provisioning.js'),
  ]);
  // Only `media add` needs the bucket, so only it insists on the media variables. No copy is
  // written to disk here: the local stack mirrors every write to its bucket under DATA_DIR itself
  // (local/messaging.ts) and reloads it after a restart.
  const media = needsMedia ? { writer: new S3MediaObjectWriter(), baseUrl: requireEnv(ENV.mediaBaseUrl) } : undefined;
  const provisioning = new provisioningModule.Provisioning({
    directory: directoryStores(),
    cipher: tokenCipherFromEnv(),
    media,
  });
  return { provisioning, target };
}

function isConnectionRefused(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 5; depth += 1) {
    const code = (current as NodeJS.ErrnoException).code;
    if (code === 'ECONNREFUSED' || code === 'ECONNRESET') return true;
    if (current instanceof AggregateError && current.errors.some(isConnectionRefused)) return true;
    current = current.cause;
  }
  return false;
}

export function describeFailure(error: unknown, target: string | null): string {
  if (error instanceof AdminUsageError) return error.message;
  if (error instanceof ProvisioningInputError) {
    // Its messages start with the input's name; on the command line that name is a flag.
    return error.message.startsWith(`${error.param} `) ? `--${error.message}` : `--${error.param}: ${error.message}`;
  }
  if (error instanceof DirectoryRecordNotFoundError) return `${error.message} (${error.code})`;
  if (error instanceof DirectoryRecordExistsError || error instanceof MissingConfigError) return error.message;
  if (error instanceof StackFileError) return error.message;
  if (isConnectionRefused(error)) {
    return `Cannot reach ${target ?? 'the store'}: is \`npm start\` running? (${(error as Error).message})`;
  }
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

export async function main(argv: string[]): Promise<number> {
  let target: string | null = null;
  // stderr carries the CLI's own error message only; the SDK's Node-version notice is not one.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  try {
    const parsed = parseCommandLine(argv);
    const built = await buildProvisioning(parsed.aws, parsed.name === 'media add');
    target = built.target;
    const metricsBackfill = async () => {
      const [{ DynamoDbPostMetrics }, { BackfillMetrics }] = await Promise.all([
        import('../lib/store/dynamodb-post-metrics.js'),
        import('../lib/use-cases/admin/backfill-metrics.js'),
      ]);
      return new BackfillMetrics({ store: new DynamoDbPostMetrics(), clock: { now: () => new Date() } });
    };
    const result = await parsed.command.run(parsed.flags, { provisioning: built.provisioning, metricsBackfill });
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`admin: ${describeFailure(error, target)}\n`);
    return 1;
  }
}

// Run when executed (`tsx admin/admin-cli.ts`), not when imported by a test.
if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
