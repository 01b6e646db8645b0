/**
 * The synthesized templates (no bundling here: test/infra/bundles.test.ts bundles): routes,
 * per-function grants and their environment, queues, scheduling, tables, media, secrets,
 * alarms and outputs.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Match } from 'aws-cdk-lib/assertions';
import { ENV } from '../../lib/config.js';
import { WEBHOOK_SECRET_CONTEXT_PREFIX } from '../../lib/domain/webhooks.js';
import { TABLES } from '../../lib/store/tables.js';
import { WEBHOOK_STREAM_FILTERS } from '../../lib/store/webhook-stream-filters.js';
import { API_BASE_PATH, API_ROUTES, ASSISTANT_ROUTES, DEFAULT_ROUTE, QUEUE_CONSUMERS, REFERENCE_ROUTES, SETTINGS_ROUTES, SWEEPER, METRICS_COLLECTOR, WEBHOOK_ROUTER } from '../../functions/catalogue.js';
import { PUBLISH_LAG_ALARM_MS, PUBLISH_LAG_METRIC, ROUTER_PARALLELIZATION } from '../../infra/stacks/api-stack.js';
import {
  POSTS_WARM_WRITE_UNITS_CONTEXT,
  POSTS_WARM_WRITE_UNITS_DEFAULT,
  PUBLISH_BATCH_SIZE_CONTEXT,
  PUBLISH_CONSUMING_DEFAULT,
  PUBLISH_MAX_CONCURRENCY_CONTEXT,
} from '../../infra/stacks/publish-throughput.js';
import { TABLE_ACTIONS } from '../../infra/constructs/bindings.js';
import { actionsByResource, describeValue, grantsOfRole, logicalId, synthesize, SYNTH_TEST_TIMEOUT_MS } from './synth.js';
import type { CfnResource, Grant, Synthesized } from './synth.js';

// Some tests synthesize the app again with other settings: seconds of CPU each, minutes on a loaded machine.
vi.setConfig({ testTimeout: SYNTH_TEST_TIMEOUT_MS });

let s: Synthesized;
beforeAll(() => {
  s = synthesize({ bundle: false });
});
afterAll(() => s?.cleanup());

/** The assistant server's functions: one per entry (the MCP entry serves three routes). */
const ASSISTANT_FUNCTION_OF_ENTRY = new Map<string, string>();
for (const route of ASSISTANT_ROUTES) if (!ASSISTANT_FUNCTION_OF_ENTRY.has(route.entry)) ASSISTANT_FUNCTION_OF_ENTRY.set(route.entry, route.name);
const ASSISTANT_FUNCTIONS = [...ASSISTANT_FUNCTION_OF_ENTRY.values()];
const ALL_FUNCTIONS = [
  ...API_ROUTES.map((r) => r.name),
  ...QUEUE_CONSUMERS.map((c) => c.name),
  SWEEPER.name,
  METRICS_COLLECTOR.name,
  WEBHOOK_ROUTER.name,
  DEFAULT_ROUTE.name,
  ...SETTINGS_ROUTES.map((r) => r.name),
  ...ASSISTANT_FUNCTIONS,
  // One function serves the API reference's page and files.
  REFERENCE_ROUTES[0]!.name,
];

/** Each face's functions share one log group (written from the design, not read from the stack). */
const FACE_OF: Record<string, string> = Object.fromEntries([
  ...[...API_ROUTES.map((r) => r.name), DEFAULT_ROUTE.name, REFERENCE_ROUTES[0]!.name].map((name) => [name, 'api']),
  ...SETTINGS_ROUTES.map((r) => [r.name, 'settings']),
  ...ASSISTANT_FUNCTIONS.map((name) => [name, 'assistant']),
  ...[...QUEUE_CONSUMERS.map((c) => c.name), SWEEPER.name, METRICS_COLLECTOR.name, WEBHOOK_ROUTER.name].map((name) => [name, 'workers']),
]);

/** Plain values (not resources) the settings functions are configured with; checked on their own below. */
const SETTINGS_VALUES = [ENV.settingsBaseUrl, ENV.oidcIssuerUrl, ENV.oidcClientId, ENV.oidcLogoutUrl, ENV.freePlanMonthlyPosts, ENV.xClientId, ENV.linkedinClientId] as string[];

/**
 * What each function may do, written from the design (not read from infra/stacks/function-access.ts,
 * which the stack applies): a difference is either a wrong grant or an undecided change.
 */
const EXPECTED: Record<string, string[]> = {
  CreatePosts: [
    'table:directory:readWrite',
    'table:counters:readWrite',
    'table:posts:readWrite',
    'table:idempotency:readWrite',
    'send:publish',
    'scheduler:create',
    'passRole:scheduler',
  ],
  ListPosts: ['table:directory:read', 'table:counters:readWrite', 'table:posts:read', 'secret:cursor'],
  GetPost: ['table:directory:read', 'table:counters:readWrite', 'table:posts:read'],
  DeletePost: ['table:directory:readWrite', 'table:counters:readWrite', 'table:posts:readWrite', 'send:deletion', 'scheduler:delete'],
  // The post lifecycle: a change of the post with its idempotency record (and allowance unit), then
  // making it due; only a PATCH deletes a schedule (its time moved). The preview writes nothing.
  UpdatePost: [
    'table:directory:readWrite',
    'table:counters:readWrite',
    'table:posts:readWrite',
    'table:idempotency:readWrite',
    'send:publish',
    'scheduler:create',
    'scheduler:delete',
    'passRole:scheduler',
  ],
  PublishDraft: ['table:directory:readWrite', 'table:counters:readWrite', 'table:posts:readWrite', 'table:idempotency:readWrite', 'send:publish', 'scheduler:create', 'passRole:scheduler'],
  RetryPost: ['table:directory:readWrite', 'table:counters:readWrite', 'table:posts:readWrite', 'table:idempotency:readWrite', 'send:publish', 'scheduler:create', 'passRole:scheduler'],
  PreviewPosts: ['table:directory:read', 'table:counters:readWrite'],
  ListAccounts: ['table:directory:read', 'table:counters:readWrite'],
  // An account's queue: PUT writes its item (directory, QUEUE# only: least-privilege.test.ts).
  GetQueue: ['table:directory:read', 'table:counters:readWrite'],
  PutQueue: ['table:directory:readWrite', 'table:counters:readWrite'],
  NextQueueSlots: ['table:directory:read', 'table:counters:readWrite'],
  RouteNotFound: ['table:counters:readWrite'],
  PublishWorker: [
    'table:directory:readWrite',
    'table:posts:readWrite',
    'table:counters:readWrite',
    'consume:publish',
    'send:publish',
    'send:deletion',
    'secret:platform',
    'kms:encryptDecrypt',
    'objects:media',
  ],
  PlatformDeletionWorker: [
    'table:directory:readWrite',
    'table:posts:readWrite',
    'consume:deletion',
    'secret:platform',
    'kms:encryptDecrypt',
  ],
  GetPostMetrics: ['table:directory:read', 'table:counters:readWrite', 'table:posts:read'],
  GetAnalytics: ['table:directory:read', 'table:counters:readWrite', 'table:posts:read'],
  RefreshPostMetrics: ['table:directory:readWrite', 'table:counters:readWrite', 'table:posts:readWrite', 'secret:platform', 'kms:encryptDecrypt'],
  MetricsCollector: ['table:directory:readWrite', 'table:posts:readWrite', 'secret:platform', 'kms:encryptDecrypt'],
  // Also the media not settled in time: an import queued again, an abandoned upload's object deleted.
  Sweeper: ['table:directory:readWrite', 'table:posts:readWrite', 'table:webhooks:readWrite', 'send:publish', 'send:deletion', 'send:webhook', 'send:mediaImport', 'attributes:publish', 'objects:media:delete'],
  // Webhook endpoints: their own items (webhooks). The three POSTs keep their Idempotency-Key
  // (idempotency); a new secret is encrypted, and a replayed create or rotation decrypts the one
  // its record keeps.
  CreateWebhookEndpoint: ['table:directory:read', 'table:counters:readWrite', 'table:webhooks:readWrite', 'table:idempotency:readWrite', 'kms:encryptDecrypt'],
  ListWebhookEndpoints: ['table:directory:read', 'table:counters:readWrite', 'table:webhooks:read', 'secret:cursor'],
  GetWebhookEndpoint: ['table:directory:read', 'table:counters:readWrite', 'table:webhooks:read'],
  // Media through the API: a presigned PUT can only land under incoming/ (PutObject there, what S3
  // checks against the signer); the complete reads and moves it out as settings' register does.
  CreateMedia: ['table:directory:readWrite', 'table:counters:readWrite', 'table:idempotency:readWrite', 'assume:media-upload-signer', 'send:mediaImport'],
  // Fetches an import into the bucket, checks it, copies it to its served key; settles its item.
  MediaImportWorker: ['table:directory:readWrite', 'consume:mediaImport', 'objects:media:readDeleteMoveIn', 'bucket:media:existence'],
  CompleteMedia: ['table:directory:readWrite', 'table:counters:readWrite', 'table:idempotency:readWrite', 'objects:media:readDeleteMoveIn', 'bucket:media:existence'],
  ListMedia: ['table:directory:read', 'table:counters:readWrite', 'secret:cursor'],
  GetMedia: ['table:directory:read', 'table:counters:readWrite'],
  UpdateMedia: ['table:directory:readWrite', 'table:counters:readWrite'],
  DeleteMedia: ['table:directory:readWrite', 'table:counters:readWrite', 'table:posts:read', 'objects:media:delete'],
  UpdateWebhookEndpoint: ['table:directory:read', 'table:counters:readWrite', 'table:webhooks:readWrite'],
  DeleteWebhookEndpoint: ['table:directory:read', 'table:counters:readWrite', 'table:webhooks:readWrite'],
  RotateWebhookSecret: ['table:directory:read', 'table:counters:readWrite', 'table:webhooks:readWrite', 'table:idempotency:readWrite', 'kms:encryptDecrypt'],
  TestWebhookEndpoint: ['table:directory:read', 'table:counters:readWrite', 'table:webhooks:readWrite', 'table:idempotency:readWrite', 'send:webhook'],
  ListEvents: ['table:directory:read', 'table:counters:readWrite', 'table:webhooks:read', 'secret:cursor'],
  GetEvent: ['table:directory:read', 'table:counters:readWrite', 'table:webhooks:read'],
  // The router reads the two streams (its mappings' grants) and writes events and deliveries; the
  // delivery worker only decrypts secrets, never encrypts.
  WebhookRouter: ['table:webhooks:readWrite', 'send:webhook', 'stream:posts', 'stream:directory', 'streams:list'],
  WebhookDeliveryWorker: ['table:webhooks:readWrite', 'consume:webhook', 'send:webhook', 'kms:decrypt'],
  // Settings pages: every signed-in page reads its session and the user.
  SettingsOverview: ['table:sessions:readWrite', 'table:directory:read', 'table:posts:read', 'table:counters:read'],
  SettingsSignIn: ['table:sessions:readWrite', 'table:counters:readWrite'],
  SettingsAuthCallback: ['table:sessions:readWrite', 'table:directory:readWrite'],
  SettingsSignOut: ['table:sessions:readWrite', 'table:directory:read'],
  SettingsStatic: [],
  SettingsKeys: ['table:sessions:readWrite', 'table:directory:read', 'table:counters:read'],
  SettingsCreateKey: ['table:sessions:readWrite', 'table:directory:readWrite'],
  SettingsRevokeKeyConfirm: ['table:sessions:readWrite', 'table:directory:read', 'table:counters:read'],
  SettingsRevokeKey: ['table:sessions:readWrite', 'table:directory:readWrite'],
  SettingsWorkspaces: ['table:sessions:readWrite', 'table:directory:read'],
  SettingsCreateWorkspace: ['table:sessions:readWrite', 'table:directory:readWrite'],
  SettingsRenameWorkspace: ['table:sessions:readWrite', 'table:directory:readWrite'],
  SettingsDisconnectAccountConfirm: ['table:sessions:readWrite', 'table:directory:read'],
  SettingsDisconnectAccount: ['table:sessions:readWrite', 'table:directory:readWrite'],
  SettingsPosts: ['table:sessions:readWrite', 'table:directory:read', 'table:posts:read', 'secret:cursor'],
  SettingsAnalytics: ['table:sessions:readWrite', 'table:directory:read', 'table:posts:read'],
  SettingsPostMetrics: ['table:sessions:readWrite', 'table:directory:read', 'table:posts:read'],
  SettingsRefreshPostMetrics: ['table:sessions:readWrite', 'table:directory:readWrite', 'table:posts:readWrite', 'secret:platform', 'kms:encryptDecrypt'],
  SettingsCancelPost: ['table:sessions:readWrite', 'table:directory:readWrite', 'table:posts:readWrite', 'table:counters:readWrite', 'send:deletion', 'scheduler:delete'],
  // The API's publish and retry without Idempotency-Key: no idempotency table.
  SettingsSendPost: ['table:sessions:readWrite', 'table:directory:read', 'table:posts:readWrite', 'table:counters:readWrite', 'send:publish', 'scheduler:create', 'passRole:scheduler'],
  SettingsRetryPost: ['table:sessions:readWrite', 'table:directory:readWrite', 'table:posts:readWrite', 'table:counters:readWrite', 'send:publish', 'scheduler:create', 'passRole:scheduler'],
  SettingsAssistantConsent: ['table:sessions:readWrite', 'table:directory:read', 'table:oauth:readWrite'],
  SettingsAssistantConsentAnswer: ['table:sessions:readWrite', 'table:directory:read', 'table:oauth:readWrite'],
  SettingsAssistants: ['table:sessions:readWrite', 'table:directory:read', 'table:oauth:read'],
  SettingsRevokeAssistant: ['table:sessions:readWrite', 'table:directory:read', 'table:oauth:readWrite'],
  // The MCP tools run the API's use cases: the union of CreatePosts, ListPosts, GetPost, DeletePost
  // and ListAccounts, plus reading tokens and grants.
  Mcp: [
    'table:directory:readWrite',
    'table:counters:readWrite',
    'table:posts:readWrite',
    'table:idempotency:readWrite',
    'table:oauth:read',
    'table:webhooks:read',
    'send:publish',
    'send:deletion',
    'send:mediaImport',
    'scheduler:create',
    'scheduler:delete',
    'passRole:scheduler',
    'secret:cursor',
  ],
  ProtectedResourceMetadata: [],
  ApiReference: [],
  AuthorizationServerMetadata: [],
  OAuthRegister: ['table:oauth:readWrite', 'table:counters:readWrite'],
  OAuthAuthorize: ['table:oauth:readWrite', 'table:counters:readWrite'],
  OAuthToken: ['table:oauth:readWrite', 'table:counters:readWrite'],
  // Connecting accounts: the callbacks may only encrypt tokens (with the account-id context), never decrypt.
  SettingsAccounts: ['table:sessions:readWrite', 'table:directory:read'],
  SettingsAccountQueue: ['table:sessions:readWrite', 'table:directory:read'],
  SettingsSaveAccountQueue: ['table:sessions:readWrite', 'table:directory:readWrite'],
  SettingsCalendar: ['table:sessions:readWrite', 'table:directory:read', 'table:posts:read'],
  SettingsSaveTimeZone: ['table:sessions:readWrite', 'table:directory:readWrite'],
  // Only builds the authorize URL: the client ids (plain values), never the secret with the client secrets.
  SettingsConnectStart: ['table:sessions:readWrite', 'table:directory:read'],
  SettingsConnectXCallback: ['table:sessions:readWrite', 'table:directory:readWrite', 'secret:platform', 'kms:encrypt'],
  SettingsConnectLinkedinCallback: ['table:sessions:readWrite', 'table:directory:readWrite', 'secret:platform', 'kms:encrypt'],
  // The media library: presigning needs PutObject (S3 checks the signer's right when the browser
  // posts), under incoming/ only; registering moves a checked upload out of it (copy: PutObject).
  SettingsMedia: ['table:sessions:readWrite', 'table:directory:read'],
  SettingsMediaUpload: ['table:sessions:readWrite', 'table:directory:read', 'assume:media-upload-signer'],
  SettingsMediaUploaded: ['table:sessions:readWrite', 'table:directory:read'],
  SettingsMediaRegister: ['table:sessions:readWrite', 'table:directory:readWrite', 'objects:media:readDeleteMoveIn', 'bucket:media:existence'],
  SettingsMediaDelete: ['table:sessions:readWrite', 'table:directory:readWrite', 'table:posts:read', 'objects:media:delete'],
  SettingsMediaAltText: ['table:sessions:readWrite', 'table:directory:readWrite'],
  SettingsMediaImport: ['table:sessions:readWrite', 'table:directory:readWrite', 'table:idempotency:readWrite', 'send:mediaImport'],
  // The Webhooks page: the endpoints' own items (webhooks); a new secret is only ever encrypted.
  SettingsWebhooks: ['table:sessions:readWrite', 'table:directory:read', 'table:webhooks:read'],
  SettingsCreateWebhook: ['table:sessions:readWrite', 'table:directory:read', 'table:webhooks:readWrite', 'table:idempotency:readWrite', 'kms:encryptDecrypt'],
  SettingsRotateWebhookSecret: ['table:sessions:readWrite', 'table:directory:read', 'table:webhooks:readWrite', 'kms:encrypt'],
  SettingsSendWebhook: ['table:sessions:readWrite', 'table:directory:read', 'table:webhooks:readWrite', 'send:webhook'],
  SettingsWebhookStatus: ['table:sessions:readWrite', 'table:directory:read', 'table:webhooks:readWrite'],
  SettingsDeleteWebhook: ['table:sessions:readWrite', 'table:directory:read', 'table:webhooks:readWrite'],
};

const CONSUME_ACTIONS = ['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:ReceiveMessage'];
const sorted = (values: readonly string[]) => [...values].sort();

function roleOf(name: string): string {
  const fn = s.service.api.functions.get(name);
  if (!fn) throw new Error(`No function ${name}`);
  return logicalId(fn.role!);
}

function grantsOf(name: string): Grant[] {
  return grantsOfRole(s, roleOf(name));
}

/** Turns a function's policies into capability names; anything unrecognised fails the test by name. */
function capabilitiesOf(name: string): string[] {
  const capabilities: string[] = [];
  const tableIndexes = new Map(TABLES.map((t) => [t.name, t.indexes.map((i) => i.indexName)]));
  for (const [resource, actions] of actionsByResource(grantsOf(name))) {
    const same = (expected: readonly string[]) => JSON.stringify(actions) === JSON.stringify(sorted(expected));
    const table = /^table:(\w+)$/.exec(resource);
    const index = /^table:(\w+)\/index\/(\w+)$/.exec(resource);
    const queue = /^queue:([\w-]+)$/.exec(resource);
    if (resource === ownLogStreams(name) && same(['logs:CreateLogStream', 'logs:PutLogEvents'])) continue;
    if (table && same(TABLE_ACTIONS.read)) capabilities.push(`table:${table[1]}:read`);
    // A stream's ARN is the table's attribute: its reads are the event source mapping's grant.
    else if (table && same(['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'])) capabilities.push(`stream:${table[1]}`);
    else if (resource === '*' && same(['dynamodb:ListStreams'])) capabilities.push('streams:list');
    else if (table && same(TABLE_ACTIONS.readWrite)) capabilities.push(`table:${table[1]}:readWrite`);
    else if (index && same(['dynamodb:Query']) && tableIndexes.get(index[1]!)?.includes(index[2]!)) continue;
    else if (queue) {
      // The event source mapping's grant and other grants on the same queue may share a statement.
      const consumes = CONSUME_ACTIONS.every((a) => actions.includes(a));
      if (consumes) capabilities.push(`consume:${queue[1]}`);
      for (const action of consumes ? actions.filter((a) => !CONSUME_ACTIONS.includes(a)) : actions) {
        if (action === 'sqs:SendMessage') capabilities.push(`send:${queue[1]}`);
        else if (action === 'sqs:GetQueueAttributes') capabilities.push(`attributes:${queue[1]}`);
        else capabilities.push(`UNEXPECTED ${resource}: ${action}`);
      }
    }
    else if (resource.includes(':scheduler:') && resource.endsWith(`:schedule/${s.service.api.scheduleGroup.scheduleGroupName}/*`)) {
      for (const action of actions) capabilities.push(action === 'scheduler:CreateSchedule' ? 'scheduler:create' : action === 'scheduler:DeleteSchedule' ? 'scheduler:delete' : `?${action}`);
    } else if (resource === 'role:scheduler' && same(['iam:PassRole'])) capabilities.push('passRole:scheduler');
    else if (/^secret:\w+$/.test(resource) && same(['secretsmanager:GetSecretValue'])) capabilities.push(resource);
    else if (resource === 'key:tokens' && same(['kms:Decrypt'])) capabilities.push('kms:decrypt');
    else if (resource === 'key:tokens' && same(['kms:Decrypt', 'kms:Encrypt'])) capabilities.push('kms:encryptDecrypt');
    else if (resource === 'key:tokens' && same(['kms:Encrypt'])) capabilities.push('kms:encrypt');
    else if (resource === 'bucket:media/*' && same(['s3:GetObject'])) capabilities.push('objects:media');
    else if (resource === 'role:media-upload-signer' && same(['sts:AssumeRole'])) capabilities.push('assume:media-upload-signer');
    else if (resource === 'bucket:media/*' && same(['s3:DeleteObject', 's3:GetObject', 's3:PutObject'])) capabilities.push('objects:media:readDeleteMoveIn');
    else if (resource === 'bucket:media/*' && same(['s3:DeleteObject', 's3:GetObject'])) capabilities.push('objects:media:readDelete');
    else if (resource === 'bucket:media/*' && same(['s3:DeleteObject'])) capabilities.push('objects:media:delete');
    else if (resource === 'bucket:media' && same(['s3:ListBucket'])) capabilities.push('bucket:media:existence');
    else capabilities.push(`UNEXPECTED ${resource}: ${actions.join(' ')}`);
  }
  return sorted(capabilities);
}

/** The function's own streams in its face's group, as Lambda names them (from the template's FunctionName). */
function ownLogStreams(name: string): string {
  const functionName = (functionResource(name).Properties as { FunctionName?: unknown }).FunctionName;
  return `arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:/SocialPublishingApi/${FACE_OF[name]}:log-stream:*/${String(functionName)}[*`;
}

/** IAM's wildcard match (`*` any run of characters, `?` one; nothing else is special, `[` included). */
function iamMatches(pattern: string, value: string): boolean {
  const regex = pattern.split('*').map((part) => part.split('?').map((text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.')).join('.*');
  return new RegExp(`^${regex}$`).test(value);
}

function resourcesOfType(type: string, template = s.apiJson): [string, CfnResource][] {
  return Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);
}

function functionResource(name: string): CfnResource {
  const fn = s.service.api.functions.get(name)!;
  return s.apiJson.Resources[logicalId(fn)]!;
}

function environmentOf(name: string): Record<string, unknown> {
  const props = functionResource(name).Properties as { Environment?: { Variables?: Record<string, unknown> } };
  return props.Environment?.Variables ?? {};
}

describe('functions', () => {
  it('are exactly the entries of functions/catalogue.ts, one function each, arm64 on nodejs22.x', () => {
    expect(sorted([...s.service.api.functions.keys()])).toEqual(sorted(ALL_FUNCTIONS));
    const lambdas = resourcesOfType('AWS::Lambda::Function');
    expect(lambdas).toHaveLength(ALL_FUNCTIONS.length);
    for (const [, lambda] of lambdas) {
      expect(lambda.Properties).toMatchObject({ Runtime: 'nodejs22.x', Architectures: ['arm64'], Handler: 'index.handler' });
    }
    expect(resourcesOfType('AWS::Lambda::Function', s.dataJson)).toHaveLength(0);
  });

  it('each run as a role of their own with no managed policy', () => {
    const roles = new Set(ALL_FUNCTIONS.map(roleOf));
    expect(roles.size).toBe(ALL_FUNCTIONS.length);
    for (const id of roles) {
      expect(s.apiJson.Resources[id]!.Properties?.ManagedPolicyArns).toBeUndefined();
    }
  });

  it('log to their face\'s shared log group (api, settings, assistant, workers), each with a retention', () => {
    for (const name of ALL_FUNCTIONS) {
      const props = functionResource(name).Properties as { FunctionName?: unknown; LoggingConfig?: { LogGroup?: unknown } };
      expect(describeValue(props.LoggingConfig?.LogGroup, s), name).toBe(`logs:${FACE_OF[name]}`);
      // A name fixed at synth: the log grant names the function's streams without referring to it.
      expect(props.FunctionName, name).toBe(`SocialPublishingApi-${name}`);
    }
    // The four faces' groups and the HTTP API's access log: not one group per function.
    expect(resourcesOfType('AWS::Logs::LogGroup')).toHaveLength(5);
    s.api.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
  });

  it('may each write only their own log streams in the shared group, never a neighbour\'s', () => {
    const streamOf = (name: string) => `2026/11/25/SocialPublishingApi-${name}[$LATEST]0123456789abcdef`;
    for (const name of ALL_FUNCTIONS) {
      const logGrants = grantsOf(name).filter((grant) => grant.actions.some((action) => action.startsWith('logs:')));
      expect(logGrants, name).toEqual([{ actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: [ownLogStreams(name)], conditions: undefined }]);
      const [pattern] = logGrants[0]!.resources;
      const groupArn = `arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:/SocialPublishingApi/${FACE_OF[name]}`;
      expect(iamMatches(pattern!, `${groupArn}:log-stream:${streamOf(name)}`), name).toBe(true);
      // Its neighbours include names it is a prefix of (SettingsMedia, SettingsMediaUpload): the `[` tells them apart.
      for (const other of ALL_FUNCTIONS.filter((candidate) => candidate !== name)) {
        expect(iamMatches(pattern!, `${groupArn}:log-stream:${streamOf(other)}`), `${name} writes ${other}'s streams`).toBe(false);
      }
      // Not the group itself (its ARN), nor another face's group.
      expect(iamMatches(pattern!, groupArn), name).toBe(false);
    }
  });

  it('send Powertools structured logs and metrics under one service name; only the media import worker may collect garbage itself', () => {
    for (const name of ALL_FUNCTIONS) {
      expect(environmentOf(name)).toMatchObject({
        POWERTOOLS_SERVICE_NAME: 'social-publishing-api',
        POWERTOOLS_METRICS_NAMESPACE: 'SocialPublishing',
        POWERTOOLS_LOG_LEVEL: 'INFO',
        // The import worker collects each streamed part's garbage (functions/media-import-worker.ts).
        NODE_OPTIONS: name === 'MediaImportWorker' ? '--enable-source-maps --expose-gc' : '--enable-source-maps',
      });
    }
  });
});

// Each stack's size: test/infra/stack-layout.test.ts.

describe('grants', () => {
  it('are inline in each function\'s role: no policy resource per function (docs/deploy.md, "Stack size")', () => {
    expect(resourcesOfType('AWS::IAM::Policy')).toEqual([]);
    for (const name of ALL_FUNCTIONS) {
      const policies = s.apiJson.Resources[roleOf(name)]!.Properties?.Policies as unknown[] | undefined;
      expect(policies, name).toHaveLength(1);
    }
  });

  it.each(ALL_FUNCTIONS)('%s may do exactly what its code needs', (name) => {
    expect(capabilitiesOf(name)).toEqual(sorted(EXPECTED[name] ?? ['(no expectation written for this function)']));
  });

  it('never use a wildcard action, never Scan, never Resource "*"', () => {
    for (const name of ALL_FUNCTIONS) {
      for (const grant of grantsOf(name)) {
        for (const action of grant.actions) {
          expect(action, `${name}: ${action}`).not.toContain('*');
          expect(action, name).not.toBe('dynamodb:Scan');
        }
        // dynamodb:ListStreams has no resource-level permission: the stream mapping grants it on *.
        if (name === WEBHOOK_ROUTER.name && grant.actions.join() === 'dynamodb:ListStreams') continue;
        expect(grant.resources, name).not.toContain('*');
      }
    }
  });

  it('only what reads tables: the GET handlers cannot write posts', () => {
    for (const name of ['GetPost', 'ListPosts', 'ListAccounts']) {
      const posts = actionsByResource(grantsOf(name)).get('table:posts') ?? [];
      expect(posts.filter((action) => !TABLE_ACTIONS.read.includes(action)), name).toEqual([]);
    }
  });

  it('use the token key only with the account id as encryption context; the functions of webhook secrets only with a webhook endpoint\'s', () => {
    const webhookSecretsOnly = ['CreateWebhookEndpoint', 'RotateWebhookSecret', 'WebhookDeliveryWorker', 'SettingsCreateWebhook', 'SettingsRotateWebhookSecret'];
    const withKey = ALL_FUNCTIONS.filter((name) => grantsOf(name).some((g) => g.resources.includes('key:tokens')));
    expect(withKey.filter((name) => webhookSecretsOnly.includes(name)).sort()).toEqual([...webhookSecretsOnly].sort());
    for (const name of withKey) {
      for (const grant of grantsOf(name).filter((g) => g.resources.includes('key:tokens'))) {
        expect(grant.conditions, name).toEqual({
          'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': ['accountId'] },
          Null: { 'kms:EncryptionContext:accountId': 'false' },
          // A platform token's context is its account id, which never starts so (lib/domain/webhooks.ts).
          ...(webhookSecretsOnly.includes(name) ? { StringLike: { 'kms:EncryptionContext:accountId': `${WEBHOOK_SECRET_CONTEXT_PREFIX}*` } } : {}),
        });
      }
    }
  });

  it('pass the scheduler role only to EventBridge Scheduler', () => {
    const passRole = grantsOf('CreatePosts').filter((grant) => grant.actions.includes('iam:PassRole'));
    expect(passRole).toEqual([
      { actions: ['iam:PassRole'], resources: ['role:scheduler'], conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } } },
    ]);
  });
});

describe('environment', () => {
  /**
   * The variables a function's grants imply, and the resource each must name: nothing else. A
   * variable without its grant would mean the code reads a setting it does not use.
   */
  function expectedEnvironment(name: string): Record<string, string> {
    const env: Record<string, string> = {};
    for (const capability of EXPECTED[name] ?? []) {
      const table = /^table:(\w+):/.exec(capability);
      if (table) env[TABLES.find((t) => t.name === table[1])!.envVar] = `table:${table[1]}`;
      if (capability === 'send:publish' || capability === 'attributes:publish') env[ENV.publishQueueUrl] = 'queue:publish';
      if (capability === 'send:deletion') env[ENV.deletionQueueUrl] = 'queue:deletion';
      if (capability === 'send:webhook') env[ENV.webhookQueueUrl] = 'queue:webhook';
      if (capability === 'send:mediaImport') env[ENV.mediaImportQueueUrl] = 'queue:mediaImport';
      if (capability.startsWith('scheduler:')) env[ENV.schedulerGroup] = s.service.api.scheduleGroup.scheduleGroupName;
      if (capability === 'passRole:scheduler') {
        env[ENV.schedulerRoleArn] = 'role:scheduler';
        env[ENV.schedulerDlqArn] = 'queue:scheduler-dlq';
        env[ENV.publishQueueArn] = 'queue:publish';
      }
      if (capability === 'secret:cursor') env[ENV.cursorSigningKeySecretId] = 'secret:cursor';
      if (capability === 'secret:platform') env[ENV.platformCredentialsSecretId] = 'secret:platform';
      if (capability.startsWith('kms:')) env[ENV.tokenKmsKeyId] = 'key:tokens';
      if (capability.startsWith('objects:media')) env[ENV.mediaBucket] = 'bucket:media';
      if (capability === 'assume:media-upload-signer') {
        env[ENV.mediaBucket] = 'bucket:media';
        env[ENV.mediaUploadSignerRoleArn] = 'role:media-upload-signer';
      }
    }
    return env;
  }

  it.each(ALL_FUNCTIONS)('%s has a variable for each grant, naming the granted resource, and no other', (name) => {
    const actual = Object.fromEntries(
      Object.entries(environmentOf(name))
        .filter(
          ([variable]) =>
            !variable.startsWith('POWERTOOLS_') &&
            variable !== 'NODE_OPTIONS' &&
            variable !== ENV.mediaBaseUrl &&
            variable !== ENV.serviceOrigin &&
            !SETTINGS_VALUES.includes(variable),
        )
        .map(([variable, value]) => [variable, describeValue(value, s)]),
    );
    expect(actual).toEqual(expectedEnvironment(name));
  });

  it('gives the settings origin to every signed-in page, the OIDC client only to sign-in and its callback, and the logout endpoint only to sign-out', () => {
    const withVariable = (variable: string) => ALL_FUNCTIONS.filter((name) => variable in environmentOf(name));
    expect(withVariable(ENV.settingsBaseUrl)).toEqual(SETTINGS_ROUTES.map((r) => r.name).filter((name) => name !== 'SettingsStatic'));
    expect(withVariable(ENV.oidcIssuerUrl)).toEqual(['SettingsSignIn', 'SettingsAuthCallback']);
    expect(withVariable(ENV.oidcClientId)).toEqual(['SettingsSignIn', 'SettingsAuthCallback', 'SettingsSignOut']);
    expect(withVariable(ENV.oidcLogoutUrl)).toEqual(['SettingsSignOut']);
    // Cognito's /logout on the user pool's own domain, sending back only to a registered sign-out URL.
    expect(describeValue(environmentOf('SettingsSignOut')[ENV.oidcLogoutUrl], s)).toMatch(/\.auth\..*amazoncognito\.com\/logout$/);
    const client = resourcesOfType('AWS::Cognito::UserPoolClient')[0]![1].Properties as Record<string, unknown>;
    expect((client.LogoutURLs as unknown[]).map((url) => describeValue(url, s))).toEqual([expect.stringMatching(/\/settings$/)]);
    expect(withVariable(ENV.freePlanMonthlyPosts)).toEqual(['SettingsAuthCallback']);
    const issuer = describeValue(environmentOf('SettingsSignIn')[ENV.oidcIssuerUrl], s);
    expect(issuer).toContain('cognito-idp.');
  });

  it('has a Cognito user pool (in the data stack) with e-mail sign-up and verification, and a public PKCE client (in the API stack) redirecting only to the settings callback', () => {
    expect(resourcesOfType('AWS::Cognito::UserPool')).toHaveLength(0);
    const pools = resourcesOfType('AWS::Cognito::UserPool', s.dataJson);
    expect(pools).toHaveLength(1);
    const pool = pools[0]![1].Properties as Record<string, unknown>;
    expect(pool.AutoVerifiedAttributes).toEqual(['email']);
    expect(pool.UsernameAttributes).toEqual(['email']);
    expect((pool.AdminCreateUserConfig as { AllowAdminCreateUserOnly: boolean }).AllowAdminCreateUserOnly).toBe(false);
    const clients = resourcesOfType('AWS::Cognito::UserPoolClient');
    expect(clients).toHaveLength(1);
    const client = clients[0]![1].Properties as Record<string, unknown>;
    expect(client.GenerateSecret).toBe(false);
    expect(client.AllowedOAuthFlows).toEqual(['code']);
    expect(client.AllowedOAuthScopes).toEqual(['openid', 'email']);
    expect(describeValue((client.CallbackURLs as unknown[])[0], s)).toContain('/settings/auth/callback');
    expect(resourcesOfType('AWS::Cognito::UserPoolDomain', s.dataJson)).toHaveLength(1);
  });

  it('outputs the settings URL and the redirect URLs to register with X and LinkedIn', () => {
    const outputs = s.apiJson.Outputs as Record<string, { Value: unknown }>;
    expect(describeValue(outputs.SettingsUrl?.Value, s)).toMatch(/\/settings$/);
    expect(describeValue(outputs.XRedirectUrl?.Value, s)).toMatch(/\/settings\/connect\/x\/callback$/);
    expect(describeValue(outputs.LinkedInRedirectUrl?.Value, s)).toMatch(/\/settings\/connect\/linkedin\/callback$/);
  });

  it('gives the media base URL (the CDN domain) to the functions that check or make media URLs', () => {
    const withUrl = ALL_FUNCTIONS.filter((name) => ENV.mediaBaseUrl in environmentOf(name));
    expect(withUrl).toEqual(['CreatePosts', 'UpdatePost', 'PreviewPosts', 'CompleteMedia', 'MediaImportWorker', 'SettingsMedia', 'SettingsMediaRegister', 'Mcp']);
    const value = environmentOf('CreatePosts')[ENV.mediaBaseUrl] as { 'Fn::Join': [string, unknown[]] };
    expect(value['Fn::Join'][1][0]).toBe('https://');
  });

  it('holds no secret value: only secret ARNs, never the value variables', () => {
    // The platforms' client ids are no secret (every authorize URL shows them): test/infra/least-privilege.test.ts.
    const valueVariables = [
      ENV.cursorSigningKey,
      ENV.platformCredentials,
      ENV.xClientSecret,
      ENV.linkedinClientSecret,
      ENV.localTokenKeyFile,
    ];
    for (const name of ALL_FUNCTIONS) {
      for (const variable of valueVariables) expect(environmentOf(name), name).not.toHaveProperty(variable);
    }
    // The cursor key is generated by Secrets Manager, never written in the template.
    s.data.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: Match.objectLike({ PasswordLength: 64 }),
      SecretString: Match.absent(),
    });
    // The platform credentials secret starts as the empty shape docs/deploy.md says to fill.
    s.data.hasResourceProperties('AWS::SecretsManager::Secret', {
      SecretString: JSON.stringify({ x: { clientId: '', clientSecret: '' }, linkedin: { clientId: '', clientSecret: '' } }),
    });
  });
});

describe('HTTP API', () => {
  function integrationTarget(routeProps: Record<string, unknown>): string {
    const target = describeValue(routeProps.Target, s); // integrations/<IntegrationId>
    const integrationId = /integrations\/\?(\w+)$/.exec(target)?.[1] ?? /integrations\/(\w+)$/.exec(target)?.[1];
    const integration = s.apiJson.Resources[integrationId ?? '']!;
    return describeValue(integration.Properties?.IntegrationUri, s);
  }

  it('routes each route of functions/catalogue.ts under /api/v1 to its own function', () => {
    const routes = resourcesOfType('AWS::ApiGatewayV2::Route').map(([, route]) => route.Properties!);
    const byKey = new Map(routes.map((route) => [route.RouteKey as string, integrationTarget(route)]));
    for (const route of API_ROUTES) {
      expect(byKey.get(`${route.method} ${API_BASE_PATH}${route.path}`), route.name).toBe(`function:${route.name}`);
    }
    for (const route of SETTINGS_ROUTES) {
      expect(byKey.get(`${route.method} ${route.path}`), route.name).toBe(`function:${route.name}`);
    }
    expect(byKey.get('$default')).toBe(`function:${DEFAULT_ROUTE.name}`);
    for (const route of ASSISTANT_ROUTES) {
      expect(byKey.get(`${route.method} ${route.path}`), route.name).toBe(`function:${ASSISTANT_FUNCTION_OF_ENTRY.get(route.entry)}`);
    }
    for (const route of REFERENCE_ROUTES) {
      expect(byKey.get(`${route.method} ${route.path}`), route.name).toBe(`function:${REFERENCE_ROUTES[0]!.name}`);
    }
    expect(routes).toHaveLength(API_ROUTES.length + SETTINGS_ROUTES.length + 1 + ASSISTANT_ROUTES.length + REFERENCE_ROUTES.length);
    expect(new Set(byKey.values()).size).toBe(API_ROUTES.length + SETTINGS_ROUTES.length + 1 + ASSISTANT_FUNCTIONS.length + 1);
  });

  it('outputs the MCP server URL', () => {
    expect(s.apiJson.Outputs?.McpUrl?.Value).toEqual({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [logicalId(s.service.api.api), 'ApiEndpoint'] }, '/mcp']] });
  });

  it('tells the assistant server its public origin: the API endpoint itself', () => {
    const withOrigin = ALL_FUNCTIONS.filter((name) => ENV.serviceOrigin in environmentOf(name));
    expect(sorted(withOrigin)).toEqual(
      sorted(['Mcp', 'ProtectedResourceMetadata', 'AuthorizationServerMetadata', 'OAuthAuthorize', 'OAuthToken', 'SettingsAssistantConsent', 'SettingsAssistantConsentAnswer']),
    );
    expect(environmentOf('Mcp')[ENV.serviceOrigin]).toEqual({ 'Fn::GetAtt': [logicalId(s.service.api.api), 'ApiEndpoint'] });
    // Loopback assistants are for the local stack only.
    for (const name of ALL_FUNCTIONS) expect(environmentOf(name)).not.toHaveProperty(ENV.oauthAllowLoopbackClients);
  });

  it('has a stage with throttling and JSON access logs without headers', () => {
    const stages = resourcesOfType('AWS::ApiGatewayV2::Stage');
    expect(stages).toHaveLength(1);
    const props = stages[0]![1].Properties as {
      StageName: string;
      AutoDeploy: boolean;
      DefaultRouteSettings: { ThrottlingRateLimit: number; ThrottlingBurstLimit: number };
      AccessLogSettings: { DestinationArn: unknown; Format: string };
    };
    expect(props.StageName).toBe('$default');
    expect(props.AutoDeploy).toBe(true);
    expect(props.DefaultRouteSettings.ThrottlingRateLimit).toBeGreaterThan(0);
    expect(props.DefaultRouteSettings.ThrottlingBurstLimit).toBeGreaterThanOrEqual(props.DefaultRouteSettings.ThrottlingRateLimit);
    const format = JSON.parse(props.AccessLogSettings.Format) as Record<string, string>;
    expect(format.requestId).toBe('$context.requestId');
    expect(props.AccessLogSettings.Format).not.toMatch(/header|authorization/i);
  });

  it('gives every route reachable without a credential a throttle of its own, below the stage\'s shared one', () => {
    const props = resourcesOfType('AWS::ApiGatewayV2::Stage')[0]![1].Properties as {
      DefaultRouteSettings: { ThrottlingRateLimit: number };
      RouteSettings?: Record<string, { ThrottlingRateLimit: number; ThrottlingBurstLimit: number }>;
    };
    const settings = props.RouteSettings ?? {};
    expect(Object.keys(settings).sort()).toEqual(
      [
        'GET /settings/sign-in',
        'GET /settings/auth/callback',
        'GET /oauth/authorize',
        'POST /oauth/register',
        'POST /oauth/token',
        'GET /.well-known/oauth-protected-resource/mcp',
        'GET /.well-known/oauth-protected-resource',
        'GET /.well-known/oauth-authorization-server',
      ].sort(),
    );
    for (const throttle of Object.values(settings)) {
      expect(throttle.ThrottlingRateLimit).toBeGreaterThan(0);
      expect(throttle.ThrottlingRateLimit).toBeLessThan(props.DefaultRouteSettings.ThrottlingRateLimit);
      expect(throttle.ThrottlingBurstLimit).toBeGreaterThanOrEqual(throttle.ThrottlingRateLimit);
    }
    // Each key names a route of the API.
    const routeKeys = resourcesOfType('AWS::ApiGatewayV2::Route').map(([, route]) => (route.Properties as { RouteKey: string }).RouteKey);
    for (const key of Object.keys(settings)) expect(routeKeys).toContain(key);
  });

  it('outputs the base URL ending in /api/v1', () => {
    const output = s.apiJson.Outputs?.ApiBaseUrl;
    expect(describeValue(output?.Value, s)).toMatch(/\/api\/v1$/);
  });
});

describe('queues', () => {
  function queueProps(label: string): Record<string, unknown> {
    const id = [...s.labels].find(([, l]) => l === label)![0];
    return s.apiJson.Resources[id]!.Properties ?? {};
  }

  it.each(QUEUE_CONSUMERS.map((c) => [c.queue, c.name] as const))('%s queue: DLQ, visibility ≥ 6× %s timeout, encryption', (queue, consumer) => {
    const props = queueProps(`queue:${queue}`);
    expect(describeValue((props.RedrivePolicy as { deadLetterTargetArn: unknown }).deadLetterTargetArn, s)).toBe(`queue:${queue}-dlq`);
    expect((props.RedrivePolicy as { maxReceiveCount: number }).maxReceiveCount).toBeGreaterThanOrEqual(2);
    const timeout = (functionResource(consumer).Properties as { Timeout: number }).Timeout;
    expect(props.VisibilityTimeout as number).toBeGreaterThanOrEqual(6 * timeout);
    expect(props.SqsManagedSseEnabled).toBe(true);
    expect(queueProps(`queue:${queue}-dlq`).MessageRetentionPeriod).toBe(14 * 24 * 3600);
  });

  it('every queue refuses requests without TLS', () => {
    const queues = resourcesOfType('AWS::SQS::Queue').map(([id]) => id);
    const policies = resourcesOfType('AWS::SQS::QueuePolicy').map(([, policy]) => policy.Properties!);
    for (const id of queues) {
      const policy = policies.find((p) => (p.Queues as { Ref: string }[]).some((q) => q.Ref === id));
      expect(JSON.stringify(policy?.PolicyDocument), id).toContain('"aws:SecureTransport":"false"');
    }
  });

  it('consumers report partial batch failures with a bounded concurrency', () => {
    const mappings = resourcesOfType('AWS::Lambda::EventSourceMapping')
      .map(([, m]) => m.Properties!)
      .filter((m) => describeValue(m.FunctionName, s) !== `function:${WEBHOOK_ROUTER.name}`);
    expect(mappings).toHaveLength(QUEUE_CONSUMERS.length);
    for (const consumer of QUEUE_CONSUMERS) {
      const mapping = mappings.find((m) => describeValue(m.FunctionName, s) === `function:${consumer.name}`);
      expect(mapping, consumer.name).toBeDefined();
      expect(describeValue(mapping!.EventSourceArn, s)).toBe(`queue:${consumer.queue}`);
      expect(mapping!.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
      const concurrency = (mapping!.ScalingConfig as { MaximumConcurrency: number }).MaximumConcurrency;
      expect(concurrency).toBeGreaterThanOrEqual(2);
      expect(concurrency).toBeLessThanOrEqual(consumer.queue === 'publish' ? PUBLISH_CONSUMING_DEFAULT.maxConcurrency : 20);
    }
  });
});

describe('webhook router', () => {
  it('reads the posts and directory streams from the oldest record, filtered, bisecting failures, retrying a batch until it succeeds', () => {
    const mappings = resourcesOfType('AWS::Lambda::EventSourceMapping')
      .map(([, m]) => m.Properties!)
      .filter((m) => describeValue(m.FunctionName, s) === `function:${WEBHOOK_ROUTER.name}`);
    expect(mappings.map((m) => describeValue(m.EventSourceArn, s)).sort()).toEqual(['table:directory', 'table:posts']);
    for (const mapping of mappings) {
      expect(mapping).toMatchObject({ StartingPosition: 'TRIM_HORIZON', BisectBatchOnFunctionError: true });
      // The router is idempotent, and an on-failure destination would get only the shard and
      // sequence numbers of a batch given up on, not its records: nothing to replay them from once
      // the stream drops them. So a failing batch is retried until it succeeds (no retry count, no
      // record age), and the iterator-age alarm says when the router falls behind.
      expect(mapping.MaximumRetryAttempts).toBe(-1);
      expect(mapping.MaximumRecordAgeInSeconds ?? -1).toBe(-1);
      expect(mapping.DestinationConfig).toBeUndefined();
      // Webhook lag (budget 1 s): no batching window, and a burst's batches of a shard handled side by side.
      expect(mapping.MaximumBatchingWindowInSeconds ?? 0).toBe(0);
      expect(mapping.ParallelizationFactor).toBe(ROUTER_PARALLELIZATION);
      // The filters the local poller applies too (lib/store/webhook-stream-filters.ts).
      const table = describeValue(mapping.EventSourceArn, s) === 'table:posts' ? 'posts' : 'directory';
      expect((mapping.FilterCriteria as { Filters: { Pattern: string }[] }).Filters.map((filter) => JSON.parse(filter.Pattern) as unknown)).toEqual(WEBHOOK_STREAM_FILTERS[table]);
      expect(JSON.stringify(mapping.FilterCriteria)).toMatch(/NewImage|Keys/);
    }
    const iteratorAge = resourcesOfType('AWS::CloudWatch::Alarm')
      .map(([, a]) => a.Properties!)
      .find((a) => a.MetricName === 'IteratorAge' && (a.Dimensions as { Value: unknown }[]).some((d) => describeValue(d.Value, s) === `function:${WEBHOOK_ROUTER.name}`));
    expect(iteratorAge).toMatchObject({ Namespace: 'AWS/Lambda', Statistic: 'Maximum', ComparisonOperator: 'GreaterThanThreshold' });
    for (const table of TABLES.filter((t) => t.name === 'posts' || t.name === 'directory')) {
      const [, resource] = Object.entries(s.dataJson.Resources).find(([id]) => s.labels.get(id) === `table:${table.name}`)!;
      expect((resource.Properties as { StreamSpecification?: unknown }).StreamSpecification).toEqual({ StreamViewType: 'NEW_AND_OLD_IMAGES' });
    }
  });
});

describe('publish throughput (docs/performance.md, "Posts due at the same second")', () => {
  const publishMapping = (synth: Synthesized) => {
    const worker = QUEUE_CONSUMERS.find((consumer) => consumer.queue === 'publish')!;
    const mappings = Object.values(synth.apiJson.Resources).filter((r) => r.Type === 'AWS::Lambda::EventSourceMapping').map((r) => r.Properties!);
    const mapping = mappings.find((m) => describeValue(m.FunctionName, synth) === `function:${worker.name}`);
    return { batchSize: mapping?.BatchSize, maxConcurrency: (mapping?.ScalingConfig as { MaximumConcurrency?: number } | undefined)?.MaximumConcurrency };
  };

  it('defaults to the arithmetic: 50 concurrent batches of 10, 500 posts in flight', () => {
    expect(PUBLISH_CONSUMING_DEFAULT).toEqual({ batchSize: 10, maxConcurrency: 100 });
    expect(publishMapping(s)).toEqual({ batchSize: 10, maxConcurrency: 100 });
  });

  it('takes the limit from cdk context, and refuses values Lambda would refuse', () => {
    const tuned = synthesize({ bundle: false, context: { [PUBLISH_MAX_CONCURRENCY_CONTEXT]: '120', [PUBLISH_BATCH_SIZE_CONTEXT]: 5 } });
    try {
      expect(publishMapping(tuned)).toEqual({ batchSize: 5, maxConcurrency: 120 });
    } finally {
      tuned.cleanup();
    }
    expect(() => synthesize({ bundle: false, context: { [PUBLISH_MAX_CONCURRENCY_CONTEXT]: '1' } })).toThrow(/publishWorkerMaxConcurrency/);
    expect(() => synthesize({ bundle: false, context: { [PUBLISH_BATCH_SIZE_CONTEXT]: 11 } })).toThrow(/publishWorkerBatchSize/);
  });

  const warmWrites = (synth: Synthesized) => {
    const tables = Object.entries(synth.dataJson.Resources).filter(([, r]) => r.Type === 'AWS::DynamoDB::Table');
    return Object.fromEntries(
      tables.map(([id, r]): [string, { table: number | undefined; indexes: (number | undefined)[] }] => {
        const props = r.Properties as { WarmThroughput?: { WriteUnitsPerSecond?: number }; GlobalSecondaryIndexes?: { IndexName: string; WarmThroughput?: { WriteUnitsPerSecond?: number } }[] };
        return [synth.labels.get(id) ?? id, { table: props.WarmThroughput?.WriteUnitsPerSecond, indexes: (props.GlobalSecondaryIndexes ?? []).map((index) => index.WarmThroughput?.WriteUnitsPerSecond) }];
      }),
    );
  };

  it('pre-warms the posts table and each of its indexes for 10,000 posts due at one second, and no other table', () => {
    const warm = warmWrites(s);
    expect(warm['table:posts']).toEqual({ table: POSTS_WARM_WRITE_UNITS_DEFAULT, indexes: [POSTS_WARM_WRITE_UNITS_DEFAULT, POSTS_WARM_WRITE_UNITS_DEFAULT, POSTS_WARM_WRITE_UNITS_DEFAULT, POSTS_WARM_WRITE_UNITS_DEFAULT] });
    for (const [label, value] of Object.entries(warm)) if (label !== 'table:posts') expect(value.table, label).toBeUndefined();
  });

  it('takes the warm throughput from cdk context (0: none), within the table write quota', () => {
    const none = synthesize({ bundle: false, context: { [POSTS_WARM_WRITE_UNITS_CONTEXT]: 0 } });
    try {
      expect(warmWrites(none)['table:posts']).toEqual({ table: undefined, indexes: [undefined, undefined, undefined, undefined] });
    } finally {
      none.cleanup();
    }
    expect(() => synthesize({ bundle: false, context: { [POSTS_WARM_WRITE_UNITS_CONTEXT]: 50_000 } })).toThrow(/postsTableWarmWriteUnits/);
  });
});

describe('scheduling', () => {
  it('has a schedule group for the one-time schedules', () => {
    s.api.resourceCountIs('AWS::Scheduler::ScheduleGroup', 1);
  });

  it('runs schedules as a role that may only send to the publish queue (and its own DLQ)', () => {
    const roleId = logicalId(s.service.api.schedulerRole);
    const role = s.apiJson.Resources[roleId]!.Properties!;
    expect(JSON.stringify(role.AssumeRolePolicyDocument)).toContain('scheduler.amazonaws.com');
    expect(role.ManagedPolicyArns).toBeUndefined();
    const grants = grantsOfRole(s, roleId);
    expect(grants).toEqual([{ actions: ['sqs:SendMessage'], resources: ['queue:publish', 'queue:scheduler-dlq'], conditions: undefined }]);
  });

  it('runs the sweeper and the metrics collector on one-minute rules', () => {
    const rules = resourcesOfType('AWS::Events::Rule').map(([, r]) => r.Properties!);
    expect(rules).toHaveLength(2);
    for (const rule of rules) expect(rule.ScheduleExpression).toBe('rate(1 minute)');
    const targets = rules.flatMap((rule) => (rule.Targets as { Arn: unknown }[]).map((t) => describeValue(t.Arn, s)));
    expect(targets.sort()).toEqual([`function:${METRICS_COLLECTOR.name}`, `function:${SWEEPER.name}`].sort());
  });
});

describe('tables', () => {
  it.each(TABLES.map((t) => [t.name, t] as const))('%s: keys and indexes as declared, on-demand, PITR, TTL, protection', (_name, definition) => {
    const table = s.service.data.tables[definition.name as keyof typeof s.service.data.tables];
    const resource = s.dataJson.Resources[logicalId(table)]!;
    const props = resource.Properties as Record<string, unknown>;
    const keySchema = [
      { AttributeName: definition.partitionKey, KeyType: 'HASH' },
      ...(definition.sortKey ? [{ AttributeName: definition.sortKey, KeyType: 'RANGE' }] : []),
    ];
    expect(props.KeySchema).toEqual(keySchema);
    expect(props.BillingMode).toBe('PAY_PER_REQUEST');
    expect(props.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
    const indexes = ((props.GlobalSecondaryIndexes ?? []) as { IndexName: string; KeySchema: unknown; Projection: unknown }[]).map((index) => ({
      name: index.IndexName,
      keys: index.KeySchema,
      projection: index.Projection,
    }));
    expect(indexes).toEqual(
      definition.indexes.map((index) => ({
        name: index.indexName,
        keys: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          ...(index.sortKey ? [{ AttributeName: index.sortKey, KeyType: 'RANGE' }] : []),
        ],
        // The projection tables.ts declares (the claim and marker writes must not be copied).
        projection:
          index.projection.type === 'INCLUDE'
            ? { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.projection.attributes] }
            : { ProjectionType: index.projection.type },
      })),
    );
    expect(props.LocalSecondaryIndexes).toBeUndefined();
    if (definition.ttlAttribute) {
      expect(props.TimeToLiveSpecification).toEqual({ AttributeName: definition.ttlAttribute, Enabled: true });
    } else {
      expect(props.TimeToLiveSpecification).toBeUndefined();
    }
    if (definition.holdsCustomerData) {
      expect(props.DeletionProtectionEnabled).toBe(true);
      // Kept on delete and replacement, not when its own first create fails (test/infra/first-deploy.test.ts).
      expect(resource.DeletionPolicy).toBe('RetainExceptOnCreate');
    } else {
      expect(props.DeletionProtectionEnabled).toBe(false);
      expect(resource.DeletionPolicy).toBe('Delete');
    }
  });

  it('outputs every table name for the admin CLI', () => {
    const outputs = Object.values(s.dataJson.Outputs ?? {}).map((output) => describeValue(output.Value, s));
    for (const definition of TABLES) expect(outputs).toContain(`table:${definition.name}`);
  });
});

describe('media library', () => {
  it('is a private, encrypted, TLS-only bucket read by CloudFront through origin access control', () => {
    const bucketId = logicalId(s.service.data.mediaBucket);
    expect(s.dataJson.Resources[bucketId]!.Properties).toMatchObject({
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
    });
    expect(s.dataJson.Resources[bucketId]!.DeletionPolicy).toBe('RetainExceptOnCreate');
    const policy = resourcesOfType('AWS::S3::BucketPolicy', s.dataJson).find(([, p]) => describeValue(p.Properties!.Bucket, s) === 'bucket:media');
    const statements = (policy![1].Properties!.PolicyDocument as { Statement: Record<string, unknown>[] }).Statement;
    expect(statements.some((st) => st.Effect === 'Deny' && JSON.stringify(st.Condition).includes('"aws:SecureTransport":"false"'))).toBe(true);
    const allows = statements.filter((st) => st.Effect === 'Allow');
    expect(allows.length).toBeGreaterThan(0);
    for (const allow of allows) {
      expect(allow.Principal).toEqual({ Service: 'cloudfront.amazonaws.com' });
      expect(JSON.stringify(allow.Condition)).toContain('AWS:SourceArn');
    }
    s.data.resourceCountIs('AWS::CloudFront::OriginAccessControl', 1);
    s.data.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({ DefaultCacheBehavior: Match.objectLike({ ViewerProtocolPolicy: 'https-only' }) }),
    });
  });

  it('outputs the media domain', () => {
    expect(s.dataJson.Outputs?.MediaDomain).toBeDefined();
  });
});

describe('alarms', () => {
  function alarms(): Record<string, unknown>[] {
    return resourcesOfType('AWS::CloudWatch::Alarm').map(([, a]) => a.Properties!);
  }

  it('fire on any message in a dead-letter queue', () => {
    for (const label of ['queue:publish-dlq', 'queue:deletion-dlq', 'queue:scheduler-dlq']) {
      const alarm = alarms().find(
        (a) =>
          a.MetricName === 'ApproximateNumberOfMessagesVisible' &&
          (a.Dimensions as { Value: unknown }[]).some((d) => describeValue(d.Value, s) === label),
      );
      expect(alarm, label).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
    }
  });

  it('fire on errors of the workers and the sweeper', () => {
    for (const name of [...QUEUE_CONSUMERS.map((c) => c.name), SWEEPER.name, METRICS_COLLECTOR.name]) {
      const alarm = alarms().find(
        (a) => a.MetricName === 'Errors' && (a.Dimensions as { Value: unknown }[]).some((d) => describeValue(d.Value, s) === `function:${name}`),
      );
      expect(alarm, name).toMatchObject({ Namespace: 'AWS/Lambda', Threshold: 1 });
    }
  });

  it('fire on publish lag: the metric, namespace and dimensions the publish worker really emits', async () => {
    const lag = alarms().find((a) => a.MetricName === PUBLISH_LAG_METRIC);
    expect(lag).toMatchObject({ ExtendedStatistic: 'p99', Threshold: PUBLISH_LAG_ALARM_MS, TreatMissingData: 'notBreaching' });
    // The worker's own metrics code, configured by the environment the template gives it.
    const env = environmentOf('PublishWorker');
    for (const name of ['POWERTOOLS_SERVICE_NAME', 'POWERTOOLS_METRICS_NAMESPACE']) process.env[name] = env[name] as string;
    const { metrics, publishMetrics } = await import('../../lib/worker-metrics.js');
    publishMetrics.published(1234);
    const emf = metrics.serializeMetrics() as unknown as Record<string, unknown> & {
      _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }[] };
    };
    metrics.clearMetrics();
    const directive = emf._aws.CloudWatchMetrics[0]!;
    expect(directive.Metrics.map((m) => m.Name)).toContain(lag!.MetricName);
    expect(directive.Namespace).toBe(lag!.Namespace);
    const dimensions = lag!.Dimensions as { Name: string; Value: string }[];
    expect(directive.Dimensions).toEqual([dimensions.map((d) => d.Name)]);
    for (const { Name, Value } of dimensions) expect(emf[Name]).toBe(Value);
  });
});
