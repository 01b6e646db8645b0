/**
 * The local stack: the service's Lambda handlers, unchanged, on this machine.
 *
 *   API Gateway (HTTP API)   → http-server.ts (payload 2.0 events, routes from functions/catalogue.ts)
 *   DynamoDB                 → DynamoDB Local (JVM), tables from lib/store/tables.ts
 *   SQS, S3                  → fauxqs in this process (media mirrored to DATA_DIR/media)
 *   EventBridge Scheduler    → scheduler-stand-in.ts (REST API subset, schedules in DATA_DIR)
 *   Lambda SQS triggers      → queue-consumers.ts (pollers, ReportBatchItemFailures)
 *   Lambda's own CPU per function → with `functions: 'process'`, the functions that are not the
 *                              API in a child process of their own (functions-host.ts)
 *   DynamoDB Streams mapping → stream-router.ts (the webhook router; checkpoints in DATA_DIR/streams)
 *   EventBridge sweep rule   → queue-consumers.ts startSweeper
 *   KMS, Secrets Manager     → key files in DATA_DIR/keys (LOCAL_TOKEN_KEY_FILE, CURSOR_SIGNING_KEY)
 *   X, LinkedIn              → sandbox platforms (local/sandbox)
 *   Cognito (settings sign-in) → oidc-provider.ts (an OpenID provider, accounts in DATA_DIR)
 *   API reference (/docs)    → built from openapi.yaml at start (web/api-reference/build.ts), as at synth
 *
 * The handlers get their whole configuration from environment variables, set here before any
 * handler module is imported; the AWS SDK finds each emulator through AWS_ENDPOINT_URL_<SERVICE>,
 * so no handler knows it is not on AWS.
 *
 * `startStackServices` starts everything above the storage emulators, given their endpoints (the
 * tests share one DynamoDB Local and one fauxqs across test files); `startLocalStack` also starts
 * the emulators themselves (npm start).
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ENV } from '../lib/config.js';
import { SIGNED_OUT_PATH } from '../lib/web/oidc-relying-party.js';
import { API_BASE_PATH, DEFAULT_ROUTE, httpRoutes, METRICS_COLLECTOR, QUEUE_CONSUMERS, SWEEPER, WEBHOOK_ROUTER } from '../functions/catalogue.js';
import { TABLES } from '../lib/store/tables.js';
import { FREE_PLAN_MONTHLY_POSTS } from '../lib/use-cases/settings/sign-in.js';
import {
  dynamoDbClientFor,
  ensureTables,
  physicalTableName,
  startDynamoDbLocal,
  tableNames,
  type DynamoDbLocal,
  type TableNames,
} from './dynamodb-local.js';
import { startFunctionsHost, type FunctionsHost } from './functions-host.js';
import { startApiServer, type ApiServer } from './http-server.js';
import { startLocalOidcProvider, type LocalOidcProvider } from './oidc-provider.js';
import { entryExists } from './lambda-runtime.js';
import { LOCAL_ACCOUNT_ID, LOCAL_CREDENTIALS, LOCAL_REGION, resolveLocalhostSubdomains } from './local-aws.js';
import { ensureLocalSecrets } from './local-secrets.js';
import { ensureBucket, ensureQueues, mirrorMediaToDisk, startFauxqsServer, type Fauxqs, type LocalQueues } from './messaging.js';
import { availableConsumers, startQueueConsumers, startSweeper, type Runner } from './queue-consumers.js';
import { startSchedulerStandIn, type SchedulerStandIn } from './scheduler-stand-in.js';
import { startS3BrowserUpload } from './s3-browser-upload.js';
import { buildApiReference } from '../web/api-reference/build.js';
import { routerFilters, routerIdleIntervals, startStreamRouter } from './stream-router.js';
import type { SandboxPlatforms } from './sandbox/index.js';

export type Log = (message: string, error?: unknown) => void;

export const defaultLog: Log = (message, error) => {
  if (error === undefined) console.error(`[local] ${message}`);
  else console.error(`[local] ${message}:`, error);
};

export interface StackEndpoints {
  dynamodbEndpoint: string;
  /** fauxqs, path-style S3. */
  s3Endpoint: string;
  /** fauxqs SQS (the host its queue URLs carry). */
  sqsEndpoint: string;
}

/** DATA_DIR/stack.json: how other processes (the admin CLI, benchmarks) reach a running stack. */
export interface StackInfo {
  dynamodbEndpoint: string;
  sqsEndpoint: string;
  s3Endpoint: string;
  schedulerEndpoint: string;
  region: string;
  tables: TableNames;
  queues: { publish: { url: string; arn: string }; deletion: { url: string; arn: string }; webhook: { url: string; arn: string } };
  mediaBucket: string;
  mediaBaseUrl: string;
  baseUrl: string;
  /** The sandbox platforms' origin (GET <origin>/sandbox/record shows what they hold), or null. */
  sandboxOrigin: string | null;
  /** Every environment variable the handlers run with. */
  env: Record<string, string>;
}

export interface StackServicesOptions {
  endpoints: StackEndpoints;
  /** Keys, schedules.json, stack.json (and media, with mediaMirror) live here. */
  dataDir: string;
  /** Prefix of every table, queue and bucket name, so several stacks can share the emulators. */
  prefix?: string;
  /** HTTP port; 0 (default) picks a free one. */
  port?: number;
  /** Queue consumers to run: all (true), none (false, default) or these names. Absent modules are skipped. */
  consumers?: boolean | readonly string[];
  sweeper?: boolean;
  /** The webhook router on the posts and directory streams (default false; npm start runs it). */
  streams?: boolean;
  /** true: in this process (tests read its state); 'process': a child with its record under DATA_DIR/sandbox. */
  sandbox?: boolean | 'process';
  /** How long the sandbox reuses an account's behaviour read (local/sandbox/directory-behaviour.ts; the bench's). */
  sandboxBehaviourReuseMs?: number;
  /** 'process' only: keep the platforms' record under DATA_DIR/sandbox (default true; the bench keeps none). */
  sandboxRecord?: boolean;
  /**
   * Where the functions that are not the API run (queue consumers, sweeper, metrics collector, the
   * stream router): in this process (default; tests read their state and meters here) or, with
   * 'process', in a child of their own (functions-host.ts), as on AWS no function shares a CPU with
   * the API or with the emulators.
   */
  functions?: 'process';
  /** Environment overrides for the handlers; they win over everything computed here. */
  env?: Record<string, string>;
  visibilityTimeoutSeconds?: number;
  sweeperIntervalMs?: number;
  /** Port of the local OpenID provider (settings sign-in); 0 (default) picks a free one. */
  oidcPort?: number;
  /** The in-process fauxqs, to mirror the media bucket to DATA_DIR/media across restarts. */
  mediaMirror?: Fauxqs;
  log?: Log;
}

export interface RunningStack {
  /** API base URL, ending in /api/v1. */
  baseUrl: string;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  mediaBaseUrl: string;
  env: Record<string, string>;
  info: StackInfo;
  tables: TableNames;
  queues: LocalQueues;
  mediaBucket: string;
  scheduler: SchedulerStandIn;
  /** Present when the sandbox platforms run in this process (tests arm faults and read posts through it). */
  sandbox: SandboxPlatforms | null;
  /** Where the sandbox platforms answer, in or out of process (GET <origin>/sandbox/record), or null. */
  sandboxOrigin: string | null;
  /** The settings web app's address (`<origin>/settings`) and its local OpenID provider. */
  settingsUrl: string;
  oidc: LocalOidcProvider;
  /** The functions host, with `functions: 'process'` (start more runners there, read its SDK meter); null otherwise. */
  functions: FunctionsHost | null;
  stop(): Promise<void>;
}

const SCHEDULER_GROUP = 'default';
const SCHEDULER_ROLE_ARN = `arn:aws:iam::${LOCAL_ACCOUNT_ID}:role/local-scheduler`;
const SANDBOX_MODULE = 'local/sandbox/index.ts';

/** The sandbox platforms, in this process (tests inspect `platforms`) or in a child process. */
interface StartedSandbox {
  platforms: SandboxPlatforms | null;
  origin: string;
  xBaseUrl: string;
  linkedinBaseUrl: string;
  stop(): Promise<void>;
}

/** Sets variables in process.env and remembers what was there, so stop() can put it back. */
class EnvironmentScope {
  private readonly previous = new Map<string, string | undefined>();
  readonly values: Record<string, string> = {};

  constructor(private readonly overrides: Record<string, string>) {}

  set(values: Record<string, string>): void {
    for (const [name, value] of Object.entries({ ...values, ...this.overrides })) {
      if (!this.previous.has(name)) this.previous.set(name, process.env[name]);
      process.env[name] = value;
      this.values[name] = value;
    }
  }

  restore(): void {
    for (const [name, value] of this.previous) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    this.previous.clear();
  }
}

async function startSandbox(
  tables: TableNames,
  dynamodbEndpoint: string,
  mode: true | 'process',
  dataDir: string,
  { behaviourReuseMs = 0, record = true }: { behaviourReuseMs?: number | undefined; record?: boolean | undefined } = {},
): Promise<StartedSandbox | null> {
  if (!entryExists(SANDBOX_MODULE)) return null;
  if (mode === 'process') {
    // Its own process with its record under DATA_DIR/sandbox, so a crash of this one leaves the
    // platforms' record of what was published intact (local/sandbox/record.ts).
    const { startSandboxProcess } = await import('./sandbox/process.js');
    const child = await startSandboxProcess({
      journalDir: record ? join(dataDir, 'sandbox') : null,
      directory: { dynamodbEndpoint, tableName: tables.directory },
      behaviourReuseMs,
    });
    return { platforms: null, origin: child.origin, xBaseUrl: child.xBaseUrl, linkedinBaseUrl: child.linkedinBaseUrl, stop: () => child.stop() };
  }
  const sandboxModule = await import('./sandbox/index.js');
  const { directoryBehaviour } = await import('./sandbox/directory-behaviour.js');
  const directory = directoryBehaviour(dynamodbEndpoint, tables.directory, { reuseMs: behaviourReuseMs });
  try {
    const platforms = await sandboxModule.startSandboxPlatforms({ port: 0, accountBehaviour: directory.accountBehaviour, xSubscription: directory.xSubscription });
    const stop = async (): Promise<void> => {
      await platforms.stop();
      directory.close();
    };
    return { platforms: { ...platforms, stop }, origin: platforms.origin, xBaseUrl: platforms.xBaseUrl, linkedinBaseUrl: platforms.linkedinBaseUrl, stop };
  } catch (error) {
    directory.close();
    throw error;
  }
}

async function sandboxEnv(): Promise<Record<string, string>> {
  const sandboxModule = await import('./sandbox/index.js');
  return { ...sandboxModule.SANDBOX_CLIENT_ENV };
}

export async function startStackServices(options: StackServicesOptions): Promise<RunningStack> {
  const log = options.log ?? defaultLog;
  const prefix = options.prefix ?? '';
  const dataDir = resolve(options.dataDir);
  const { endpoints } = options;
  await mkdir(dataDir, { recursive: true });
  resolveLocalhostSubdomains();

  const stops: Array<() => Promise<void>> = [];
  const env = new EnvironmentScope(options.env ?? {});
  stops.push(async () => env.restore());
  const stopAll = async (): Promise<void> => {
    // Last started, first stopped: consumers before the server before the scheduler and queues.
    for (const stop of stops.splice(0).reverse()) {
      try {
        await stop();
      } catch (error) {
        log('stopping a part of the local stack failed', error);
      }
    }
  };

  try {
    const tables = tableNames(prefix);
    const dynamo = dynamoDbClientFor(endpoints.dynamodbEndpoint, { retries: 'standard' });
    try {
      await ensureTables(dynamo, tables);
    } finally {
      dynamo.destroy();
    }
    const queues = await ensureQueues(endpoints.sqsEndpoint, {
      prefix,
      ...(options.visibilityTimeoutSeconds === undefined ? {} : { visibilityTimeoutSeconds: options.visibilityTimeoutSeconds }),
    });
    const mediaBucket = `${prefix}media`;
    await ensureBucket(endpoints.s3Endpoint, mediaBucket);
    if (options.mediaMirror) {
      const mirror = await mirrorMediaToDisk(options.mediaMirror, mediaBucket, join(dataDir, 'media'), log);
      stops.push(() => mirror.flush());
    }
    const secrets = await ensureLocalSecrets(dataDir);
    // Browsers upload media with presigned POSTs, which the S3 emulator does not take: a stand-in checks the policies.
    const browserUpload = await startS3BrowserUpload({ s3Endpoint: endpoints.s3Endpoint });
    stops.push(() => browserUpload.stop());

    const scheduler = await startSchedulerStandIn({
      stateFile: join(dataDir, 'schedules.json'),
      sqsEndpoint: endpoints.sqsEndpoint,
      groups: [SCHEDULER_GROUP],
      log: (message, error) => log(`scheduler: ${message}`, error),
    });
    stops.push(() => scheduler.stop());

    env.set({
      AWS_REGION: LOCAL_REGION,
      AWS_DEFAULT_REGION: LOCAL_REGION,
      AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
      AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamodbEndpoint,
      AWS_ENDPOINT_URL_SQS: endpoints.sqsEndpoint,
      AWS_ENDPOINT_URL_S3: endpoints.s3Endpoint,
      AWS_ENDPOINT_URL_SCHEDULER: scheduler.endpoint,
      ...Object.fromEntries(TABLES.map((table) => [table.envVar, physicalTableName(tables, table)])),
      [ENV.publishQueueUrl]: queues.publish.url,
      [ENV.publishQueueArn]: queues.publish.arn,
      [ENV.deletionQueueUrl]: queues.deletion.url,
      [ENV.webhookQueueUrl]: queues.webhook.url,
      // Local receivers (tests, a developer's own) listen on http://127.0.0.1; never set on AWS.
      [ENV.webhookAllowLoopback]: 'true',
      [ENV.mediaImportQueueUrl]: queues.mediaImport.url,
      // Tests serve the files they import on http://127.0.0.1; never set on AWS.
      [ENV.mediaImportAllowLoopback]: 'true',
      [ENV.schedulerGroup]: SCHEDULER_GROUP,
      [ENV.schedulerRoleArn]: SCHEDULER_ROLE_ARN,
      [ENV.schedulerDlqArn]: queues.schedulerDeadLetter.arn,
      [ENV.mediaBucket]: mediaBucket,
      [ENV.mediaForcePathStyle]: 'true',
      [ENV.mediaUploadUrl]: browserUpload.url,
      [ENV.cursorSigningKey]: secrets.cursorSigningKey,
      [ENV.localTokenKeyFile]: secrets.tokenKeyFile,
      // Metrics are CloudWatch EMF lines on stdout: useful on AWS, noise on a terminal.
      POWERTOOLS_METRICS_DISABLED: 'true',
    });

    let sandbox: StartedSandbox | null = null;
    if (options.sandbox) {
      sandbox = await startSandbox(tables, endpoints.dynamodbEndpoint, options.sandbox, dataDir, { behaviourReuseMs: options.sandboxBehaviourReuseMs, record: options.sandboxRecord });
      if (sandbox) {
        const running = sandbox;
        stops.push(() => running.stop());
        env.set({
          [ENV.xApiBaseUrl]: sandbox.xBaseUrl,
          [ENV.linkedinApiBaseUrl]: sandbox.linkedinBaseUrl,
          ...(await sandboxEnv()),
          // The sandboxes store a post before they answer and their lookups see it at once: there is
          // no platform-side lag to wait out, so an unknown outcome is looked up after 3 s here
          // instead of the 25 s the real platforms need (AMBIGUOUS_RECHECK_MS). A shell value wins.
          ...(process.env[ENV.publishAmbiguousRecheckSeconds] ? {} : { [ENV.publishAmbiguousRecheckSeconds]: '3' }),
        });
      } else {
        log(`sandbox platforms skipped: ${SANDBOX_MODULE} does not exist yet`);
      }
    }

    // /docs renders openapi.yaml as it is now (rebuilt only when it changed since the last build).
    buildApiReference();
    const api: ApiServer = await startApiServer({
      routes: httpRoutes(),
      defaultRoute: DEFAULT_ROUTE,
      media: { s3Endpoint: endpoints.s3Endpoint, bucket: mediaBucket },
      port: options.port ?? 0,
      log: (message, error) => log(`api: ${message}`, error),
    });
    stops.push(() => api.stop());
    const baseUrl = `${api.origin}${API_BASE_PATH}`;
    const mediaBaseUrl = `${api.origin}/media`;
    // Set in the same tick the server started listening: no request can reach a handler before.
    env.set({
      [ENV.mediaBaseUrl]: mediaBaseUrl,
      [ENV.settingsBaseUrl]: api.origin,
      [ENV.freePlanMonthlyPosts]: String(FREE_PLAN_MONTHLY_POSTS),
      // The assistant server's resource and issuer URLs; loopback assistants are allowed only here.
      [ENV.serviceOrigin]: api.origin,
      [ENV.oauthAllowLoopbackClients]: 'true',
    });

    // The settings app signs in through this provider exactly as through Cognito on AWS.
    const oidc = await startLocalOidcProvider({
      accountsFile: join(dataDir, 'oidc-accounts.json'),
      redirectUris: [`${api.origin}/settings/auth/callback`],
      signedOutUris: [`${api.origin}${SIGNED_OUT_PATH}`],
      ...(options.oidcPort === undefined ? {} : { port: options.oidcPort }),
      log: (message, error) => log(`oidc: ${message}`, error),
    });
    stops.push(() => oidc.stop());
    env.set({ [ENV.oidcIssuerUrl]: oidc.issuer, [ENV.oidcClientId]: oidc.clientId, [ENV.oidcLogoutUrl]: `${oidc.issuer}/logout` });

    // Every variable is set by now: the functions host is forked with them.
    let functions: FunctionsHost | null = null;
    if (options.functions === 'process') {
      const host = await startFunctionsHost({ env: { ...env.values }, log: (message, error) => log(`functions: ${message}`, error) });
      functions = host;
      stops.push(() => host.stop());
    }
    const consumers = availableConsumers(QUEUE_CONSUMERS, options.consumers ?? false);
    if (consumers.length > 0) {
      const consuming = {
        sqsEndpoint: endpoints.sqsEndpoint,
        consumers: consumers.map((consumer) => ({
          name: consumer.name,
          entry: consumer.entry,
          queueUrl: queues[consumer.queue].url,
          queueArn: queues[consumer.queue].arn,
          batchSize: consumer.consuming.batchSize,
          pollers: consumer.consuming.maxConcurrency,
        })),
      };
      const runner: Runner = functions
        ? await functions.startConsumers(consuming)
        : startQueueConsumers({ ...consuming, log: (message, error) => log(`consumers: ${message}`, error) });
      stops.push(() => runner.stop());
    }
    // The sweeper, and the metrics collector on the sweeper's timer, as on AWS (a rule every minute each).
    for (const [timed, label] of [[SWEEPER, 'sweeper'], [METRICS_COLLECTOR, 'metrics']] as const) {
      if (!options.sweeper || !entryExists(timed.entry)) continue;
      const sweeping = { ...timed, ...(options.sweeperIntervalMs === undefined ? {} : { intervalMs: options.sweeperIntervalMs }) };
      const runner: Runner = functions ? await functions.startSweeper(sweeping) : startSweeper({ ...sweeping, log: (message, error) => log(`${label}: ${message}`, error) });
      stops.push(() => runner.stop());
    }

    if (options.streams) {
      const routing = {
        dynamodbEndpoint: endpoints.dynamodbEndpoint,
        tables: WEBHOOK_ROUTER.tables.map((name) => tables[name]),
        checkpointDir: join(dataDir, 'streams'),
        entry: WEBHOOK_ROUTER.entry,
        name: WEBHOOK_ROUTER.name,
        filters: routerFilters(tables),
        idleIntervalsMs: routerIdleIntervals(tables),
      };
      const router = functions ? await functions.startStreamRouter(routing) : await startStreamRouter({ ...routing, log: (message, error) => log(`streams: ${message}`, error) });
      stops.push(() => router.stop());
    }

    const info: StackInfo = {
      dynamodbEndpoint: endpoints.dynamodbEndpoint,
      sqsEndpoint: endpoints.sqsEndpoint,
      s3Endpoint: endpoints.s3Endpoint,
      schedulerEndpoint: scheduler.endpoint,
      region: LOCAL_REGION,
      tables: { ...tables },
      queues: {
        publish: { url: queues.publish.url, arn: queues.publish.arn },
        deletion: { url: queues.deletion.url, arn: queues.deletion.arn },
        webhook: { url: queues.webhook.url, arn: queues.webhook.arn },
      },
      mediaBucket,
      mediaBaseUrl,
      baseUrl,
      sandboxOrigin: sandbox?.origin ?? null,
      env: { ...env.values },
    };
    const stackFile = join(dataDir, 'stack.json');
    await writeFile(stackFile, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
    // Removed first on stop, so nothing finds a stack.json that points at a stopped stack.
    stops.push(() => rm(stackFile, { force: true }));

    let stopping: Promise<void> | undefined;
    return {
      baseUrl,
      origin: api.origin,
      mediaBaseUrl,
      env: { ...env.values },
      info,
      tables,
      queues,
      mediaBucket,
      scheduler,
      sandbox: sandbox?.platforms ?? null,
      sandboxOrigin: sandbox?.origin ?? null,
      settingsUrl: `${api.origin}/settings`,
      oidc,
      functions,
      stop: () => (stopping ??= stopAll()),
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

export interface LocalStackOptions extends Omit<StackServicesOptions, 'endpoints' | 'mediaMirror' | 'consumers' | 'sweeper' | 'sandbox' | 'streams'> {
  /** Keep DynamoDB data in memory instead of DATA_DIR/dynamodb (and media in memory only). */
  inMemoryDb?: boolean;
  /** Default true: everything runs, as on AWS. */
  consumers?: boolean | readonly string[];
  sweeper?: boolean;
  streams?: boolean;
  sandbox?: boolean | 'process';
}

export interface LocalStack extends RunningStack {
  endpoints: StackEndpoints;
}

export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const log = options.log ?? defaultLog;
  const dataDir = resolve(options.dataDir);
  let dynamo: DynamoDbLocal | undefined;
  let fauxqs: Fauxqs | undefined;
  const stopEmulators = async (): Promise<void> => {
    await fauxqs?.stop().catch((error: unknown) => log('stopping fauxqs failed', error));
    await dynamo?.stop().catch((error: unknown) => log('stopping DynamoDB Local failed', error));
  };
  try {
    dynamo = await startDynamoDbLocal({ dataDir: options.inMemoryDb ? null : join(dataDir, 'dynamodb') });
    fauxqs = await startFauxqsServer({ mediaMirror: !options.inMemoryDb });
    const endpoints: StackEndpoints = {
      dynamodbEndpoint: dynamo.endpoint,
      s3Endpoint: fauxqs.endpoint,
      sqsEndpoint: fauxqs.sqsEndpoint,
    };
    const services = await startStackServices({
      ...options,
      dataDir,
      endpoints,
      consumers: options.consumers ?? true,
      sweeper: options.sweeper ?? true,
      streams: options.streams ?? true,
      sandbox: options.sandbox ?? true,
      ...(options.inMemoryDb ? {} : { mediaMirror: fauxqs }),
    });
    let stopping: Promise<void> | undefined;
    return {
      ...services,
      endpoints,
      stop: () =>
        (stopping ??= (async () => {
          await services.stop();
          await stopEmulators();
        })()),
    };
  } catch (error) {
    await stopEmulators();
    throw error;
  }
}
