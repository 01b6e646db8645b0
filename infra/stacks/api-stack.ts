/**
 * Everything that can be rebuilt from the code: the functions of functions/catalogue.ts, the HTTP
 * API in front of them, the queues and the Scheduler wiring that make posts due, the sweeper's
 * timer, and the alarms. Destroying this stack loses no customer data (DataStack holds it); a
 * schedule lost with the group is made up for by the sweeper, which sends every due post it finds
 * in the byDue index.
 */
import * as path from 'node:path';
import { CfnOutput, Duration, Fn, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import type { StackProps } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import type { CfnStage, DomainMappingOptions } from 'aws-cdk-lib/aws-apigatewayv2';
import { DomainName, HttpApi, HttpMethod, HttpRoute, HttpRouteKey, HttpStage, LogGroupLogDestination, SecurityPolicy } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { Alarm, ComparisonOperator, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction as LambdaTarget } from 'aws-cdk-lib/aws-events-targets';
import { PolicyDocument, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { CfnRole, Policy } from 'aws-cdk-lib/aws-iam';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { ARecord, HostedZone, RecordTarget } from 'aws-cdk-lib/aws-route53';
import { ApiGatewayv2DomainProperties } from 'aws-cdk-lib/aws-route53-targets';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { ScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { FilterCriteria, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ENV } from '../../lib/config.js';
import { WEBHOOK_SECRET_CONTEXT_PREFIX } from '../../lib/domain/webhooks.js';
import { WEBHOOK_ROUTER_PARALLELIZATION, WEBHOOK_STREAM_FILTERS } from '../../lib/store/webhook-stream-filters.js';
import {
  API_BASE_PATH,
  API_ROUTES,
  ASSISTANT_ROUTES,
  REFERENCE_ROUTES,
  DEFAULT_ROUTE,
  MAX_RECEIVE_COUNT,
  consumingOf,
  QUEUE_CONSUMERS,
  SETTINGS_ROUTES,
  SWEEPER,
  METRICS_COLLECTOR,
  WEBHOOK_ROUTER,
  type QueueConsumer,
} from '../../functions/catalogue.js';
import {
  bindBucket,
  bindQueueAttributes,
  bindKey,
  bindQueueConsumer,
  bindQueueSender,
  bindScheduler,
  bindSecret,
  bindTable,
  bindValue,
  uploadSignerRole,
} from '../constructs/bindings.js';
import type { ConsumerOptions, Scheduling, SharedBucket } from '../constructs/bindings.js';
import { FaceLogGroup, LOG_FACES, METRICS_NAMESPACE, REPO_ROOT, SERVICE_NAME, ServiceFunction } from '../constructs/service-function.js';
import type { LogFace } from '../constructs/service-function.js';
import { SettingsSignIn } from '../constructs/settings-sign-in.js';
import { FREE_PLAN_MONTHLY_POSTS } from '../../lib/use-cases/settings/sign-in.js';
import { API_REFERENCE_DIR, buildApiReference } from '../../web/api-reference/build.js';
import { SIGNED_OUT_PATH } from '../../lib/web/oidc-relying-party.js';
import type { DataStack, TableName } from './data-stack.js';
import { alarmNotificationSetting, customDomainSetting, DeploySettingError, SETTINGS } from './deploy-settings.js';
import type { AlarmNotificationSetting, CustomDomainSetting } from './deploy-settings.js';
import { accessOf } from './function-access.js';
import { stackOfFunction, UNAUTHENTICATED_ROUTES } from './layout.js';
import type { FunctionStackName } from './stack-names.js';
import { PUBLISH_CONSUMING_DEFAULT, publishConsuming } from './publish-throughput.js';

export { UNAUTHENTICATED_ROUTES };
/**
 * Per route, for all callers together: a person's sign-in or an assistant's connection is a
 * handful of requests, so 10 a second (600 a minute) is far above real use, and a flood on one
 * route leaves the stage's 100 a second to everything else.
 */
export const UNAUTHENTICATED_THROTTLE = { rateLimit: 10, burstLimit: 20 };

export interface ApiStackProps extends StackProps {
  data: DataStack;
  /** The stacks that hold the functions layout.ts does not keep here, by name (they refer to this one). */
  functionStacks: ReadonlyMap<FunctionStackName, Stack>;
  /** Stage-wide throttle, a backstop behind the per-key limits the service enforces itself. */
  throttle?: { rateLimit: number; burstLimit: number };
}

/** Batches of one stream shard the webhook router handles at once (Lambda's ParallelizationFactor, 1-10). */
export const ROUTER_PARALLELIZATION = WEBHOOK_ROUTER_PARALLELIZATION;

/** The variable each queue's URL is given in, to a function that sends to it. */
const QUEUE_URL_VARIABLES: Record<QueueConsumer['queue'], string> = {
  publish: ENV.publishQueueUrl,
  deletion: ENV.deletionQueueUrl,
  webhook: ENV.webhookQueueUrl,
  mediaImport: ENV.mediaImportQueueUrl,
};

/**
 * Node flags a function runs with beyond the source maps: the media import worker collects the
 * garbage of each part it streamed (functions/media-import-worker.ts), which needs `gc`.
 */
const NODE_FLAGS: Record<string, readonly string[]> = { MediaImportWorker: ['--expose-gc'] };

/** Size and time of each kind of function; the queue visibility timeouts derive from these. */
const API_FUNCTION = { timeout: Duration.seconds(15), memorySize: 512 };
const SIZING: Record<string, { timeout: Duration; memorySize: number }> = {
  // Uploads media to the platforms a range at a time (lib/store/s3-media-source.ts), so it holds a
  // few megabytes at most; X allows 120 s per upload request and a video may process for minutes:
  // the most time. 512 MB, not more: each invocation also waits a second or two for its posts' due
  // second, and Lambda bills that wait by memory (docs/operations.md, "What it costs").
  PublishWorker: { timeout: Duration.minutes(5), memorySize: 512 },
  // Up to a batch of deletions one after the other, each bounded by the adapters' 15 s timeout.
  PlatformDeletionWorker: { timeout: Duration.minutes(2), memorySize: 512 },
  Sweeper: { timeout: Duration.seconds(50), memorySize: 256 },
  // Up to 8 shards x 400 due posts a run, a platform request per 100 (X) and a write per post.
  MetricsCollector: { timeout: Duration.seconds(50), memorySize: 256 },
  RouteNotFound: { timeout: Duration.seconds(10), memorySize: 256 },
  // One import: the fetch's 60 s, then the checks and the copy to the served key of up to 500 MB.
  // Within the import's lease (lib/domain/media-import.ts IMPORT_LEASE_SECONDS), so a second worker
  // never takes an import the first is still running. 512 MB for the CPU share: every 8 MiB part
  // is hashed for its signature.
  MediaImportWorker: { timeout: Duration.minutes(2), memorySize: 512 },
  // A batch is delivered at once: one 10 s attempt timeout plus the records' reads and writes.
  WebhookDeliveryWorker: { timeout: Duration.seconds(30), memorySize: 256 },
  // Up to 100 stream records, a few writes each.
  WebhookRouter: { timeout: Duration.seconds(60), memorySize: 256 },
};

/**
 * Files copied beside a function's bundle: the settings stylesheet and script for the static
 * route, the API reference built from openapi.yaml at synth (web/api-reference/build.ts).
 * test/infra/function-environment.test.ts copies the same beside its bundles.
 */
export const STATIC_FILES: Record<string, { from: string; to: string }> = {
  SettingsStatic: { from: 'web/static', to: 'static' },
  ApiReference: { from: path.relative(REPO_ROOT, API_REFERENCE_DIR), to: 'api-reference' },
};

/**
 * Batch size and the ceiling of concurrent consumers per queue, so a backlog cannot storm the
 * platforms' rate limits (per user and per app). The publish worker sends a batch concurrently;
 * its settings are a deploy-time choice (publish-throughput.ts, docs/performance.md, "Posts due at the same second"), these
 * are the defaults. Deletions are rarer and go one at a time per batch.
 */
const CONSUMING: Record<QueueConsumer['queue'], ConsumerOptions> = {
  publish: PUBLISH_CONSUMING_DEFAULT,
  deletion: consumingOf('deletion'),
  webhook: consumingOf('webhook'),
  mediaImport: consumingOf('mediaImport'),
};

/**
 * Concurrency set aside for the publish worker, so API traffic (which draws on the account's
 * shared pool) can never starve publishing: posts keep going out on their second while the API is
 * flooded. None by default: Lambda keeps 100 of the account's concurrency unreserved, so reserving
 * N needs a quota of at least N + 100, and a new account's quota is 10 (reserving anything there
 * fails the stack). With a raised quota: `npx cdk deploy --all -c publishWorkerReservedConcurrency=N`,
 * N at least the publish queue's maxConcurrency (reserved concurrency below the event source's
 * maximum throttles the poller). docs/deploy.md, "Settings" is where it is documented.
 */
export const PUBLISH_RESERVED_CONCURRENCY_CONTEXT = 'publishWorkerReservedConcurrency';
export const PUBLISH_RESERVED_CONCURRENCY_DEFAULT = 0;

/** undefined: no reservation. */
function publishReservedConcurrency(scope: Construct, maxConcurrency: number): number | undefined {
  const raw: unknown = scope.node.tryGetContext(PUBLISH_RESERVED_CONCURRENCY_CONTEXT);
  const value = raw === undefined || raw === '' ? PUBLISH_RESERVED_CONCURRENCY_DEFAULT : Number(raw);
  if (!Number.isInteger(value) || (value !== 0 && value < maxConcurrency)) {
    throw new Error(
      `${PUBLISH_RESERVED_CONCURRENCY_CONTEXT} must be 0 (none) or a whole number of at least ${maxConcurrency} (the publish queue's maxConcurrency); got ${String(raw)}`,
    );
  }
  return value === 0 ? undefined : value;
}

/**
 * The platforms' OAuth client ids, deploy-time settings (`npx cdk deploy -c xClientId=... -c
 * linkedinClientId=...`): the function that starts a connect builds authorize URLs with them and
 * reads no secret. Not secrets (every authorize URL shows them); the client secrets stay in the
 * platform credentials secret, read by the callbacks and the workers. Unset, connecting answers
 * that the platform is not configured, as before the secret is filled.
 */
export const PLATFORM_CLIENT_ID_CONTEXT = { x: 'xClientId', linkedin: 'linkedinClientId' } as const;

function platformClientId(scope: Construct, platform: keyof typeof PLATFORM_CLIENT_ID_CONTEXT): string {
  const raw: unknown = scope.node.tryGetContext(PLATFORM_CLIENT_ID_CONTEXT[platform]);
  if (raw === undefined) return '';
  if (typeof raw !== 'string' || !/^[\w.~-]{1,200}$/.test(raw)) {
    throw new Error(`${PLATFORM_CLIENT_ID_CONTEXT[platform]} must be the app's OAuth 2.0 client id (letters, digits, - _ . ~); got ${String(raw)}`);
  }
  return raw;
}

/**
 * The publish worker's lag metric (lib/worker-metrics.ts: publishedAt - scheduledFor, in ms),
 * and the p99 that raises the alarm: the contract's target is 1 s.
 */
export const PUBLISH_LAG_METRIC = 'PublishLag';
export const PUBLISH_LAG_ALARM_MS = 5_000;

export class ApiStack extends Stack {
  readonly api: HttpApi;
  readonly functions: Map<string, ServiceFunction> = new Map();
  /** One log group per face, shared by its functions (each writes only its own streams). */
  readonly logGroups: Record<LogFace, FaceLogGroup>;
  readonly publishQueue: Queue;
  readonly deletionQueue: Queue;
  readonly webhookQueue: Queue;
  /** Media imports from a URL (POST /media with sourceUrl; the sweeper's requeues). */
  readonly mediaImportQueue: Queue;
  readonly schedulerDeadLetterQueue: Queue;
  readonly schedulerRole: Role;
  /** The role upload URLs are signed as, one customer prefix per session (lib/store/upload-signer.ts). */
  readonly mediaUploadSigner: Role;
  readonly scheduleGroup: ScheduleGroup;
  readonly baseUrl: string;
  readonly settingsSignIn: SettingsSignIn;
  /** https://<custom domain> or the HTTP API's own endpoint: the origin of the API, the settings app and the assistant server. */
  readonly origin: string;
  /** Present when alarms notify (deploy-settings.ts alarmEmail / alarmTopicArn). */
  readonly alarmTopic: ITopic | undefined;
  readonly alarms: Alarm[] = [];
  /** Per other stack, the scope its routes are made in (see addRoute). */
  private readonly routeScopes = new Map<Stack, Construct>();

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    super(scope, id, props);
    const { data } = props;
    const customDomain = customDomainSetting(this);
    const alarmNotification = alarmNotificationSetting(this);
    // Also implied by the references below; explicit because the media bucket ARN is imported by name.
    this.addStackDependency(data);

    const consumers = new Map(QUEUE_CONSUMERS.map((consumer) => [consumer.queue, consumer.name]));
    const queueFor = (kind: QueueConsumer['queue'], name: string) => {
      const consumerName = consumers.get(kind);
      const sizing = consumerName ? sizingOf(consumerName) : API_FUNCTION;
      return this.queueWithDeadLetterQueue(name, sizing.timeout);
    };
    this.publishQueue = queueFor('publish', 'PublishQueue');
    this.deletionQueue = queueFor('deletion', 'DeletionQueue');
    this.webhookQueue = queueFor('webhook', 'WebhookQueue');
    this.mediaImportQueue = queueFor('mediaImport', 'MediaImportQueue');
    // No dead-letter queue for the webhook router: its stream mappings retry a failing batch until
    // it succeeds (the router is idempotent), and a stream's on-failure destination would receive
    // only shard and sequence pointers, never the records (docs/webhooks.md).

    // Scheduler: one group for the service's one-time schedules; a role that may only put a
    // message on the publish queue (and, when that fails, on the schedules' own DLQ, which the
    // Scheduler also writes with this role).
    const scheduleGroupName = `${this.stackName}-posts`;
    this.scheduleGroup = new ScheduleGroup(this, 'Schedules', { scheduleGroupName, removalPolicy: RemovalPolicy.DESTROY });
    this.schedulerDeadLetterQueue = new Queue(this, 'SchedulerDlq', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    acknowledgeDeadLetterQueue(this.schedulerDeadLetterQueue);
    this.schedulerRole = new Role(this, 'SchedulerRole', {
      description: 'Assumed by EventBridge Scheduler to deliver due posts to the publish queue',
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: {
          StringEquals: { 'aws:SourceAccount': this.account },
          ArnEquals: { 'aws:SourceArn': this.scheduleGroup.scheduleGroupArn },
        },
      }),
      inlinePolicies: {
        deliver: new PolicyDocument({
          statements: [
            new PolicyStatement({
              actions: ['sqs:SendMessage'],
              resources: [this.publishQueue.queueArn, this.schedulerDeadLetterQueue.queueArn],
            }),
          ],
        }),
      },
    });
    const scheduling: Scheduling = {
      groupName: scheduleGroupName,
      role: this.schedulerRole,
      deadLetterQueue: this.schedulerDeadLetterQueue,
      targetQueue: this.publishQueue,
    };

    const mediaBucket = Bucket.fromBucketAttributes(this, 'MediaBucket', {
      bucketArn: Fn.importValue(data.mediaBucketArnExportName),
      bucketName: data.mediaBucket.bucketName,
    });
    this.mediaUploadSigner = uploadSignerRole(this, 'MediaUploadSigner', mediaBucket, data.mediaBucketArnExportName);
    const media: SharedBucket = { bucket: mediaBucket, arnExportName: data.mediaBucketArnExportName, uploadSigner: this.mediaUploadSigner };

    // Functions, each bound to exactly what function-access.ts gives it.
    const reserved = new Map<string, number | undefined>([['PublishWorker', publishReservedConcurrency(this, publishConsuming(this).maxConcurrency)]]);
    const logGroups = Object.fromEntries(LOG_FACES.map((face) => [face, new FaceLogGroup(this, face)])) as Record<LogFace, FaceLogGroup>;
    this.logGroups = logGroups;
    const hostOf = (name: string): Stack => {
      const stackName = stackOfFunction(name);
      if (stackName === this.stackName) return this;
      const host = props.functionStacks.get(stackName);
      if (!host) throw new Error(`No stack ${stackName} for ${name}`);
      return host;
    };
    const build = (name: string, entry: string, description: string, face: LogFace) => {
      const sizing = sizingOf(name);
      const reservedConcurrentExecutions = reserved.get(name);
      const fn = new ServiceFunction(hostOf(name), name, {
        entry,
        description,
        logGroup: logGroups[face],
        serviceName: this.stackName,
        ...sizing,
        ...(reservedConcurrentExecutions === undefined ? {} : { reservedConcurrentExecutions }),
        ...(STATIC_FILES[name] ? { copyFiles: STATIC_FILES[name] } : {}),
        ...(NODE_FLAGS[name] ? { nodeFlags: NODE_FLAGS[name] } : {}),
      });
      this.bindAccess(fn, name, data, scheduling, media);
      this.functions.set(name, fn);
      return fn;
    };

    // HTTP API: one route per function under /api/v1; anything else to the JSON 404 function.
    const notFound = build(DEFAULT_ROUTE.name, DEFAULT_ROUTE.entry, 'Answers requests that match no route with a JSON error', 'api');
    this.api = new HttpApi(this, 'Api', {
      description: 'Social publishing REST API',
      createDefaultStage: false,
      defaultIntegration: new HttpLambdaIntegration('DefaultIntegration', notFound),
      // With a custom domain, that is the one origin: the settings app, the OAuth redirect URLs and
      // the assistant server's metadata name it, and requests on the execute-api URL would fail
      // their origin checks anyway.
      disableExecuteApiEndpoint: customDomain !== undefined,
    });
    const domainMapping = customDomain ? this.customDomain(customDomain) : undefined;
    this.origin = customDomain ? `https://${customDomain.domainName}` : this.api.apiEndpoint;
    const accessLogs = new LogGroup(this, 'ApiAccessLogs', { retention: RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY });
    const throttle = props.throttle ?? { rateLimit: 100, burstLimit: 200 };
    const stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle,
      accessLogSettings: { destination: new LogGroupLogDestination(accessLogs), format: ACCESS_LOG_FORMAT },
      ...(domainMapping ? { domainMapping } : {}),
    });
    for (const route of API_ROUTES) {
      const fn = build(route.name, route.entry, `${route.method} ${API_BASE_PATH}${route.path}`, 'api');
      this.addRoute(route.name, `${API_BASE_PATH}${route.path}`, route.method, fn);
    }
    // Settings web app: one function per page, signed in through the data stack's Cognito user
    // pool with this stack's app client (its URLs are this API's).
    const settingsOrigin = this.origin;
    this.settingsSignIn = new SettingsSignIn(this, 'SettingsAppClient', {
      pool: data.settingsUsers,
      callbackUrl: `${settingsOrigin}/settings/auth/callback`,
      signedOutUrl: `${settingsOrigin}${SIGNED_OUT_PATH}`,
    });
    for (const route of SETTINGS_ROUTES) {
      const fn = build(route.name, route.entry, `${route.method} ${route.path}`, 'settings');
      const access = accessOf(route.name);
      if (access.settingsBaseUrl) bindValue(fn, ENV.settingsBaseUrl, settingsOrigin);
      if (access.oidcClient) {
        bindValue(fn, ENV.oidcIssuerUrl, this.settingsSignIn.issuerUrl);
        bindValue(fn, ENV.oidcClientId, this.settingsSignIn.client.userPoolClientId);
      }
      if (access.oidcLogout) {
        bindValue(fn, ENV.oidcLogoutUrl, `${this.settingsSignIn.domain.baseUrl()}/logout`);
        bindValue(fn, ENV.oidcClientId, this.settingsSignIn.client.userPoolClientId);
      }
      if (access.freePlan) bindValue(fn, ENV.freePlanMonthlyPosts, String(FREE_PLAN_MONTHLY_POSTS));
      if (access.serviceOrigin) bindValue(fn, ENV.serviceOrigin, this.origin);
      this.addRoute(route.name, route.path, route.method, fn);
    }

    // The assistant server: one function per entry (the MCP function also answers GET and DELETE
    // with 405), each bound to its own row of function-access.ts; the origin is the API's own URL.
    const assistantFunctions = new Map<string, ServiceFunction>();
    for (const route of ASSISTANT_ROUTES) {
      let fn = assistantFunctions.get(route.entry);
      if (!fn) {
        fn = build(route.name, route.entry, `${route.method} ${route.path}`, 'assistant');
        if (accessOf(route.name).serviceOrigin) bindValue(fn, ENV.serviceOrigin, this.origin);
        assistantFunctions.set(route.entry, fn);
      }
      this.addRoute(route.name, route.path, route.method, fn);
    }
    // The API reference: one function for the page and its files, built from openapi.yaml now, so
    // what is deployed describes the API deployed with it.
    buildApiReference();
    const referenceFunction = build(REFERENCE_ROUTES[0]!.name, REFERENCE_ROUTES[0]!.entry, 'GET /docs: the API reference (Redoc, from openapi.yaml)', 'api');
    for (const route of REFERENCE_ROUTES) this.addRoute(route.name, route.path, route.method, referenceFunction);
    // The routes anyone may call without a credential get a throttle of their own, so a flood on
    // one of them is refused by the gateway before it spends the stage's shared limit (which every
    // API key's and assistant's requests draw on). Each function also counts per client address.
    // (CfnStage.routeSettings is raw JSON: CloudFormation's own property names.)
    const stageResource = stage.node.defaultChild as CfnStage;
    const elsewhere = UNAUTHENTICATED_ROUTES.filter((name) => stackOfFunction(name) !== this.stackName);
    if (elsewhere.length > 0) throw new Error(`The stage throttles ${elsewhere.join(', ')} by route key: layout.ts must keep them in ${this.stackName}`);
    stageResource.routeSettings = Object.fromEntries(
      [...SETTINGS_ROUTES, ...ASSISTANT_ROUTES]
        .filter((route) => UNAUTHENTICATED_ROUTES.includes(route.name))
        .map((route) => [`${route.method} ${route.path}`, { ThrottlingRateLimit: UNAUTHENTICATED_THROTTLE.rateLimit, ThrottlingBurstLimit: UNAUTHENTICATED_THROTTLE.burstLimit }]),
    );
    // Route settings name routes: the stage is (re)deployed only once they exist.
    stage.node.addDependency(...this.api.node.children.filter((child) => child instanceof HttpRoute));
    // API keys are verified by the functions themselves (lib/http): a 401 is part of the contract,
    // carries the rate-limit headers and is counted per client address.
    for (const scope of [this.api, ...this.routeScopes.values()]) acknowledgeOwnAuthentication(scope);

    // Queue consumers.
    for (const consumer of QUEUE_CONSUMERS) {
      const fn = build(consumer.name, consumer.entry, `Consumes the ${consumer.queue} queue`, 'workers');
      const queue = this.queueOf(consumer.queue);
      bindQueueConsumer(fn, queue, consumer.queue === 'publish' ? publishConsuming(this) : CONSUMING[consumer.queue]);
    }

    // The webhook router: the posts and directory streams, filtered to the changes that can be
    // events (docs/webhooks.md), in order per shard. A failing batch is bisected and retried until
    // it succeeds: the router is idempotent, and an on-failure destination would receive only the
    // batch's shard and sequence numbers, not its records, so a batch given up on would be lost.
    // The iterator-age alarm (createAlarms) says when the router falls behind.
    const router = build(WEBHOOK_ROUTER.name, WEBHOOK_ROUTER.entry, 'Turns committed post and account changes into webhook events', 'workers');
    // The filters are shared with the local poller (lib/store/webhook-stream-filters.ts).
    // No batching window: a record is handed over as soon as it is read (webhook lag, budget 1 s);
    // a burst still fills batches of 100, and 4 batches of a shard at once (in order per post)
    // keep a burst of publishes from queueing behind one batch at a time.
    for (const tableName of WEBHOOK_ROUTER.tables) {
      router.addEventSource(
        new DynamoEventSource(data.tables[tableName], {
          startingPosition: StartingPosition.TRIM_HORIZON,
          batchSize: 100,
          maxBatchingWindow: Duration.millis(0),
          parallelizationFactor: ROUTER_PARALLELIZATION,
          bisectBatchOnError: true,
          retryAttempts: -1,
          filters: WEBHOOK_STREAM_FILTERS[tableName].map((pattern) => FilterCriteria.filter({ ...pattern })),
        }),
      );
    }
    Validations.of(router.role!).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'dynamodb:ListStreams has no resource-level permission (the event source mapping grants it on *); reading records is granted on the two streams only.',
    });

    // The sweeper, every minute.
    const sweeper = build(SWEEPER.name, SWEEPER.entry, 'Sends scheduled posts that are due and were not sent', 'workers');
    new Rule(Stack.of(sweeper), 'SweeperSchedule', {
      description: 'Runs the sweeper every minute',
      schedule: Schedule.rate(Duration.minutes(1)),
      // The next run is a minute away: a failed run is not worth retrying.
      targets: [new LambdaTarget(sweeper, { retryAttempts: 0, maxEventAge: Duration.minutes(1) })],
    });
    // The metrics collector, every minute (its due index: docs/metrics.md, why not a schedule per post).
    const collector = build(METRICS_COLLECTOR.name, METRICS_COLLECTOR.entry, 'Collects the metrics of published posts that are due', 'workers');
    new Rule(Stack.of(collector), 'MetricsCollectorSchedule', {
      description: 'Runs the metrics collector every minute',
      schedule: Schedule.rate(Duration.minutes(1)),
      targets: [new LambdaTarget(collector, { retryAttempts: 0, maxEventAge: Duration.minutes(1) })],
    });

    // Each role's grants inline in the role rather than in a policy resource of its own: the same
    // statements (and the same IAM size quota, inline policies both), one resource fewer per
    // function under CloudFormation's 500 (docs/deploy.md, "Stack size").
    for (const fn of this.functions.values()) inlineDefaultPolicy(fn.role as Role);
    this.createAlarms();
    this.alarmTopic = alarmNotification ? this.alarmNotifications(alarmNotification) : undefined;

    this.baseUrl = `${this.origin}${API_BASE_PATH}`;
    new CfnOutput(this, 'ApiBaseUrl', { value: this.baseUrl, description: 'base_url of the API (ends in /api/v1)' });
    new CfnOutput(this, 'ScheduleGroupName', { value: this.scheduleGroup.scheduleGroupName });
    new CfnOutput(this, 'McpUrl', { value: `${this.origin}/mcp`, description: 'The assistant server: the one URL an MCP client needs' });
    new CfnOutput(this, 'SettingsUrl', { value: `${settingsOrigin}/settings`, description: 'The settings web app: sign up, make API keys, connect accounts' });
    // Register these with the X and LinkedIn developer apps (docs/deploy.md).
    new CfnOutput(this, 'XRedirectUrl', { value: `${settingsOrigin}/settings/connect/x/callback`, description: 'Callback URL of the X app (OAuth 2.0)' });
    new CfnOutput(this, 'LinkedInRedirectUrl', { value: `${settingsOrigin}/settings/connect/linkedin/callback`, description: 'Redirect URL of the LinkedIn app' });
    if (this.alarmTopic) new CfnOutput(this, 'AlarmTopicArn', { value: this.alarmTopic.topicArn, description: 'Every alarm notifies this SNS topic' });
  }

  /**
   * A route of the HTTP API to its function's handler, made in the function's stack. Elsewhere than
   * here, the route sits at the same construct path below its stack as HttpApi.addRoutes gives it
   * here (Api/<METHOD><path>), so the route, its integration and its permission keep the logical
   * ids they had when every route was in this stack: moving them is a refactor, not a replacement
   * (docs/deploy.md, "Upgrading to the split stacks").
   */
  private addRoute(name: string, path: string, method: keyof typeof HttpMethod, fn: ServiceFunction): void {
    const integration = new HttpLambdaIntegration(`${name}Integration`, fn);
    const host = Stack.of(fn);
    if (host === this) {
      this.api.addRoutes({ path, methods: [HttpMethod[method]], integration });
      return;
    }
    let scope = this.routeScopes.get(host);
    if (!scope) {
      scope = new Construct(host, 'Api');
      this.routeScopes.set(host, scope);
    }
    new HttpRoute(scope, `${HttpMethod[method]}${path}`, { httpApi: this.api, routeKey: HttpRouteKey.with(path, HttpMethod[method]), integration });
  }

  /**
   * The API, the settings app and the assistant server on the operator's domain, so their URLs and
   * the OAuth redirect URLs registered at X, LinkedIn and with assistants survive a redeploy. The
   * certificate must be in this stack's region (a regional endpoint). With a hosted zone the alias
   * record is written here; without one, the operator points a CNAME at CustomDomainTarget.
   */
  private customDomain(setting: CustomDomainSetting): DomainMappingOptions {
    const certificateRegion = setting.certificateArn.split(':')[3];
    if (!Token.isUnresolved(this.region) && certificateRegion !== this.region) {
      throw new DeploySettingError(
        `context ${SETTINGS.certificateArn} is in ${certificateRegion}; the HTTP API's custom domain needs a certificate in its own region, ${this.region}`,
      );
    }
    const domainName = new DomainName(this, 'CustomDomain', {
      domainName: setting.domainName,
      certificate: Certificate.fromCertificateArn(this, 'CustomDomainCertificate', setting.certificateArn),
      securityPolicy: SecurityPolicy.TLS_1_2,
    });
    if (setting.hostedZone) {
      new ARecord(this, 'CustomDomainRecord', {
        zone: HostedZone.fromHostedZoneAttributes(this, 'HostedZone', { hostedZoneId: setting.hostedZone.id, zoneName: setting.hostedZone.name }),
        recordName: setting.domainName,
        target: RecordTarget.fromAlias(new ApiGatewayv2DomainProperties(domainName.regionalDomainName, domainName.regionalHostedZoneId)),
      });
    }
    new CfnOutput(this, 'CustomDomainTarget', {
      value: domainName.regionalDomainName,
      description: setting.hostedZone ? `Where the alias record of ${setting.domainName} points` : `Point a CNAME record for ${setting.domainName} here`,
    });
    return { domainName };
  }

  /** Every alarm notifies one SNS topic: a new one with the operator's e-mail subscribed, or theirs. */
  private alarmNotifications(setting: AlarmNotificationSetting): ITopic {
    let topic: ITopic;
    if ('email' in setting) {
      const created = new Topic(this, 'AlarmTopic', { displayName: 'Social publishing API alarms', enforceSSL: true });
      created.addSubscription(new EmailSubscription(setting.email));
      Validations.of(created).acknowledge({
        id: 'AwsSolutions-SNS2',
        reason:
          'Alarm notifications carry only alarm names and metric values. CloudWatch cannot publish to a topic encrypted with the AWS-managed SNS key, and a customer key for it costs $1 a month.',
      });
      topic = created;
    } else {
      const topicRegion = setting.topicArn.split(':')[3];
      if (!Token.isUnresolved(this.region) && topicRegion !== this.region) {
        throw new DeploySettingError(`context ${SETTINGS.alarmTopicArn} is in ${topicRegion}; CloudWatch alarms notify only topics in their own region, ${this.region}`);
      }
      topic = Topic.fromTopicArn(this, 'AlarmTopic', setting.topicArn);
    }
    const action = new SnsAction(topic);
    for (const alarm of this.alarms) alarm.addAlarmAction(action);
    return topic;
  }

  private queueWithDeadLetterQueue(id: string, consumerTimeout: Duration): Queue {
    const deadLetterQueue = new Queue(this, `${id}Dlq`, {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    acknowledgeDeadLetterQueue(deadLetterQueue);
    return new Queue(this, id, {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // Six times the consumer's timeout (AWS's advice for event source mappings), so a message
      // is not handed to a second consumer while retries of the first are still running.
      visibilityTimeout: Duration.seconds(consumerTimeout.toSeconds() * 6),
      deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: MAX_RECEIVE_COUNT },
    });
  }

  private queueOf(kind: QueueConsumer['queue']): Queue {
    return { publish: this.publishQueue, deletion: this.deletionQueue, webhook: this.webhookQueue, mediaImport: this.mediaImportQueue }[kind];
  }

  private bindAccess(fn: ServiceFunction, name: string, data: DataStack, scheduling: Scheduling, media: SharedBucket): void {
    const access = accessOf(name);
    for (const [tableName, level] of Object.entries(access.tables) as [TableName, 'read' | 'readWrite'][]) {
      const writableKeyPrefixes = access.writableKeyPrefixes?.[tableName];
      bindTable(fn, data.tableDefinitions[tableName], data.tables[tableName], level, writableKeyPrefixes ? { writableKeyPrefixes } : {});
    }
    for (const queue of access.sendsTo ?? []) bindQueueSender(fn, this.queueOf(queue), { urlVar: QUEUE_URL_VARIABLES[queue] });
    if (access.scheduler) bindScheduler(fn, scheduling, access.scheduler);
    for (const queue of access.readsQueueAttributes ?? []) {
      if (queue === 'publish') bindQueueAttributes(fn, this.publishQueue, { urlVar: ENV.publishQueueUrl });
    }
    if (access.cursorSigningKey) bindSecret(fn, data.cursorSigningKey, ENV.cursorSigningKeySecretId);
    if (access.platformCredentials) bindSecret(fn, data.platformCredentials, ENV.platformCredentialsSecretId);
    if (access.platformClientIds) {
      bindValue(fn, ENV.xClientId, platformClientId(this, 'x'));
      bindValue(fn, ENV.linkedinClientId, platformClientId(this, 'linkedin'));
    }
    if (access.tokenKey) {
      bindKey(fn, data.tokenKey, {
        envVar: ENV.tokenKmsKeyId,
        access: access.tokenKey,
        encryptionContextKey: TOKEN_CONTEXT_KEY,
        ...(access.tokenKeyForWebhookSecretsOnly ? { contextValuePrefix: WEBHOOK_SECRET_CONTEXT_PREFIX } : {}),
      });
    }
    if (access.mediaObjects) bindBucket(fn, media, ENV.mediaBucket, access.mediaObjects);
    if (access.mediaBaseUrl) bindValue(fn, ENV.mediaBaseUrl, data.mediaBaseUrl);
  }

  private createAlarms(): void {
    const deadLetterQueues: [string, Queue][] = [
      ['PublishDlq', this.publishQueue.deadLetterQueue!.queue as Queue],
      ['DeletionDlq', this.deletionQueue.deadLetterQueue!.queue as Queue],
      ['WebhookDlq', this.webhookQueue.deadLetterQueue!.queue as Queue],
      ['MediaImportDlq', this.mediaImportQueue.deadLetterQueue!.queue as Queue],
      ['SchedulerDlq', this.schedulerDeadLetterQueue],
    ];
    for (const [name, queue] of deadLetterQueues) {
      this.alarms.push(new Alarm(this, `${name}Depth`, {
        alarmDescription: `Messages in ${name}: posts that could not be processed; inspect and redrive`,
        metric: queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }));
    }
    // The router falls behind (or is stuck on a batch): changes wait in the stream, which keeps them 24 h.
    const router = this.functions.get(WEBHOOK_ROUTER.name)!;
    this.alarms.push(new Alarm(Stack.of(router), 'WebhookRouterIteratorAge', {
      alarmDescription: 'The webhook router is more than 5 minutes behind the posts or directory stream (events are late; the stream keeps 24 h)',
      metric: router.metric('IteratorAge', { period: Duration.minutes(5), statistic: 'Maximum' }),
      threshold: 5 * 60 * 1000,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    }));
    for (const name of [...QUEUE_CONSUMERS.map((consumer) => consumer.name), SWEEPER.name, METRICS_COLLECTOR.name, WEBHOOK_ROUTER.name]) {
      const fn = this.functions.get(name)!;
      // Beside its function: an alarm here naming a function of a stack that depends on this one would be a cycle.
      this.alarms.push(new Alarm(Stack.of(fn), `${name}Errors`, {
        alarmDescription: `${name} failed (an invocation error, not a post that failed on its platform)`,
        metric: fn.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }));
    }
    this.alarms.push(new Alarm(this, 'PublishLag', {
      alarmDescription: `Posts go out late: p99 of (publishedAt - scheduledFor) above ${PUBLISH_LAG_ALARM_MS} ms for 15 minutes`,
      metric: new Metric({
        namespace: METRICS_NAMESPACE,
        metricName: PUBLISH_LAG_METRIC,
        dimensionsMap: { service: SERVICE_NAME },
        statistic: 'p99',
        period: Duration.minutes(5),
      }),
      threshold: PUBLISH_LAG_ALARM_MS,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    }));
    this.alarms.push(new Alarm(this, 'Api5xx', {
      alarmDescription: 'The API answered 5xx (internal_error) to callers',
      metric: this.api.metricServerError({ period: Duration.minutes(5), statistic: 'Sum' }),
      threshold: 5,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    }));
  }
}

function inlineDefaultPolicy(role: Role): void {
  const policy = role.node.tryFindChild('DefaultPolicy') as Policy | undefined;
  if (!policy) return;
  const cfnRole = role.node.defaultChild as CfnRole;
  cfnRole.policies = [{ policyName: 'access', policyDocument: policy.document }];
  role.node.tryRemoveChild('DefaultPolicy');
}

/** The encryption context key the token cipher binds the account id into. */
export const TOKEN_CONTEXT_KEY = 'accountId';

function sizingOf(name: string): { timeout: Duration; memorySize: number } {
  return SIZING[name] ?? API_FUNCTION;
}

/** API keys and sessions are verified by the functions themselves (lib/http, lib/web), not by the gateway. */
function acknowledgeOwnAuthentication(scope: Construct): void {
  Validations.of(scope).acknowledge({
    id: 'AwsSolutions-APIG4',
    reason: 'Authentication is the service’s own API keys, verified (hashed, constant time) in every function; a gateway authorizer would duplicate it.',
  });
  Validations.of(scope).acknowledge({
    id: 'AwsSolutions-COG4',
    reason: 'API callers are servers with API keys; settings pages verify their own session cookie (Cognito sign-in, server-side sessions) in every function.',
  });
}

function acknowledgeDeadLetterQueue(queue: Queue): void {
  Validations.of(queue).acknowledge({
    id: 'AwsSolutions-SQS3',
    reason: 'This queue is itself a dead-letter queue; an alarm fires on its depth.',
  });
}

/** One JSON line per request; no headers, so no API key ever reaches the access log. */
const ACCESS_LOG_FORMAT = AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    ip: '$context.identity.sourceIp',
    requestTime: '$context.requestTime',
    httpMethod: '$context.httpMethod',
    routeKey: '$context.routeKey',
    path: '$context.path',
    status: '$context.status',
    protocol: '$context.protocol',
    responseLength: '$context.responseLength',
    responseLatency: '$context.responseLatency',
    integrationLatency: '$context.integrationLatency',
    integrationError: '$context.integrationErrorMessage',
  }),
);
