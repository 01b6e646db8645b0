/**
 * The one place where a function is given a resource. Each binding sets the environment variable
 * the code reads (names from lib/config.ts ENV, or the table's own envVar) AND grants exactly the
 * actions that use needs, in one call: a function can never have a variable without the access
 * behind it, nor a grant it has no variable for. Grants are written out as plain policy
 * statements on the function's own role (no `grantReadWriteData` and friends): those helpers
 * include actions the code never calls (Scan, DescribeTable, GetQueueUrl, ...).
 */
import { Aws, Duration, Validations } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { AccountRootPrincipal, PolicyDocument, PolicyStatement, Role } from 'aws-cdk-lib/aws-iam';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { TableDefinition } from '../../lib/store/tables.js';
import { ENV } from '../../lib/config.js';
import { INCOMING_PREFIX } from '../../lib/domain/media-library.js';

export type TableAccess = 'read' | 'readWrite';

/**
 * Transactions (TransactWriteItems / TransactGetItems) have no IAM action of their own: each item
 * in one needs the action it performs (Put, Update, Delete, ConditionCheck).
 * Scan is in neither list: no access pattern of the service scans.
 */
export const TABLE_ACTIONS: Record<TableAccess, readonly string[]> = {
  read: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'],
  readWrite: [
    'dynamodb:GetItem',
    'dynamodb:BatchGetItem',
    'dynamodb:Query',
    'dynamodb:PutItem',
    'dynamodb:UpdateItem',
    'dynamodb:DeleteItem',
    'dynamodb:ConditionCheckItem',
  ],
};

/** Sets a variable, refusing a second binding that would silently overwrite the first with another value. */
export function setEnv(fn: LambdaFunction, name: string, value: string): void {
  const bound = bindingsOf(fn);
  const previous = bound.get(name);
  if (previous !== undefined && previous !== value) {
    throw new Error(`${fn.node.path}: ${name} is already bound to another value`);
  }
  bound.set(name, value);
  fn.addEnvironment(name, value);
}

const BOUND = new WeakMap<LambdaFunction, Map<string, string>>();
function bindingsOf(fn: LambdaFunction): Map<string, string> {
  let bound = BOUND.get(fn);
  if (!bound) {
    bound = new Map();
    BOUND.set(fn, bound);
  }
  return bound;
}

/**
 * A table: its name in the table's own variable; the level's actions on the table, and Query (the
 * only action that reads an index) on exactly the indexes lib/store/tables.ts declares.
 */
export function bindTable(
  fn: LambdaFunction,
  definition: TableDefinition,
  table: ITable,
  access: TableAccess,
  options: { writableKeyPrefixes?: readonly string[] } = {},
): void {
  setEnv(fn, definition.envVar, table.tableName);
  const prefixes = options.writableKeyPrefixes;
  if (access === 'readWrite' && prefixes !== undefined) {
    // Reads anywhere; writes only to items whose partition key has one of the prefixes. Every
    // write action carries its item's key, so dynamodb:LeadingKeys is always present on them.
    const writes = TABLE_ACTIONS.readWrite.filter((action) => !TABLE_ACTIONS.read.includes(action));
    fn.addToRolePolicy(new PolicyStatement({ actions: [...TABLE_ACTIONS.read], resources: [table.tableArn] }));
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: writes,
        resources: [table.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': prefixes.map((prefix) => `${prefix}*`) } },
      }),
    );
  } else {
    fn.addToRolePolicy(new PolicyStatement({ actions: [...TABLE_ACTIONS[access]], resources: [table.tableArn] }));
  }
  if (definition.indexes.length > 0) {
    const indexes = definition.indexes.map((index) => `${table.tableArn}/index/${index.indexName}`);
    fn.addToRolePolicy(new PolicyStatement({ actions: ['dynamodb:Query'], resources: indexes }));
  }
}

export interface QueueVariables {
  urlVar: string;
}

/** Sending to a queue: SendMessage (which also covers SendMessageBatch) on that queue only. */
export function bindQueueSender(fn: LambdaFunction, queue: IQueue, vars: QueueVariables): void {
  setEnv(fn, vars.urlVar, queue.queueUrl);
  fn.addToRolePolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [queue.queueArn] }));
}

/** Reading a queue's attributes (the sweeper notices a queue created anew by its CreatedTimestamp). */
export function bindQueueAttributes(fn: LambdaFunction, queue: IQueue, vars: QueueVariables): void {
  setEnv(fn, vars.urlVar, queue.queueUrl);
  fn.addToRolePolicy(new PolicyStatement({ actions: ['sqs:GetQueueAttributes'], resources: [queue.queueArn] }));
}

export interface ConsumerOptions {
  batchSize: number;
  /** Upper bound of concurrent invocations, so a backlog cannot storm the platforms' rate limits. */
  maxConcurrency: number;
}

/**
 * Consuming a queue: an event source mapping that reports partial batch failures (a failed
 * message is retried alone, the rest of the batch is deleted). The mapping grants the receive and
 * delete actions on this queue itself; the consumer needs no environment variable.
 */
export function bindQueueConsumer(fn: LambdaFunction, queue: IQueue, options: ConsumerOptions): void {
  fn.addEventSource(
    new SqsEventSource(queue, {
      batchSize: options.batchSize,
      maxConcurrency: options.maxConcurrency,
      reportBatchItemFailures: true,
    }),
  );
}

/** A secret: only its ARN is in the environment; the value is fetched at run time (lib/secrets.ts). */
export function bindSecret(fn: LambdaFunction, secret: ISecret, envVar: string): void {
  setEnv(fn, envVar, secret.secretArn);
  fn.addToRolePolicy(new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [secret.secretArn] }));
}

/** The settings callbacks only encrypt new tokens; the workers decrypt and re-encrypt refreshed ones. */
export type KeyAccess = 'encrypt' | 'decrypt' | 'encryptDecrypt';

export interface KeyBindingOptions {
  envVar: string;
  access: KeyAccess;
  /**
   * The encryption context key every call must carry (the account id bound into each token's
   * ciphertext): the key cannot be used by these functions for anything else.
   */
  encryptionContextKey: string;
  /** When set, that key's value must start with it: the function may use only those ciphertexts. */
  contextValuePrefix?: string;
}

export function bindKey(fn: LambdaFunction, key: IKey, options: KeyBindingOptions): void {
  setEnv(fn, options.envVar, key.keyArn);
  const actions = options.access === 'decrypt' ? ['kms:Decrypt'] : options.access === 'encrypt' ? ['kms:Encrypt'] : ['kms:Encrypt', 'kms:Decrypt'];
  fn.addToRolePolicy(
    new PolicyStatement({
      actions,
      resources: [key.keyArn],
      conditions: {
        'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': [options.encryptionContextKey] },
        Null: { [`kms:EncryptionContext:${options.encryptionContextKey}`]: 'false' },
        ...(options.contextValuePrefix === undefined
          ? {}
          : { StringLike: { [`kms:EncryptionContext:${options.encryptionContextKey}`]: `${options.contextValuePrefix}*` } }),
      },
    }),
  );
}

/**
 * What a function does with media objects: read them (the worker uploads them to the platform),
 * sign upload POSTs for them (the policy is signed with the function's credentials, so the role
 * needs PutObject: S3 checks it when the browser posts), or delete them (a refused upload, a file
 * removed from the library). HeadObject needs GetObject. `existence`: learn that an object is
 * missing. S3 answers a HEAD or GET of a missing key 404 only to a role that may list the bucket,
 * and 403 to any other, which the code could not tell from a real refusal; so a function that asks
 * whether an upload arrived gets s3:ListBucket on the bucket itself (its code lists nothing).
 */
export type BucketAccess = 'read' | 'presignUpload' | 'delete' | 'existence' | 'moveIn';

/**
 * Each object access, its action and the keys it applies to. A presigned POST can only ever write
 * under the incoming prefix (lib/domain/media-library.ts INCOMING_PREFIX): the browser's upload
 * cannot land where media is served, whatever the policy says. `moveIn`: registering copies a
 * checked upload to its served key (CopyObject is a PutObject of the target).
 */
const OBJECT_ACTIONS: Record<Exclude<BucketAccess, 'existence' | 'presignUpload'>, { action: string; keys: string }> = {
  read: { action: 's3:GetObject', keys: '*' },
  delete: { action: 's3:DeleteObject', keys: '*' },
  moveIn: { action: 's3:PutObject', keys: '*' },
};

/**
 * A bucket of the data stack, with the name of the export its ARN is imported by. The name makes
 * the object ARN print the same on every synthesis (`<export>/*`), so its cdk-nag acknowledgement
 * below names exactly that resource.
 */
export interface SharedBucket {
  bucket: IBucket;
  arnExportName: string;
  /**
   * The role upload URLs are signed as (uploadSignerRole below): a function that presigns uploads
   * may assume it, and each session it takes is narrowed to one customer's incoming prefix.
   */
  uploadSigner: IRole;
}

/**
 * The upload signer: may put objects under the incoming prefix and nothing else, assumed only by
 * the functions granted sts:AssumeRole on it (the account's principals need that grant in their
 * own policy: the trust names the account so that no stack has to name another's roles), for at
 * most an hour (what a role assumed from a role may last, and an API upload URL's life).
 */
export function uploadSignerRole(scope: Construct, id: string, bucket: IBucket, arnExportName: string): Role {
  const role = new Role(scope, id, {
    assumedBy: new AccountRootPrincipal(),
    maxSessionDuration: Duration.hours(1),
    description: 'Signs media upload URLs; each session is narrowed to one customer prefix (lib/store/upload-signer.ts)',
    // Inline, as the functions' grants are: no policy resource of its own (docs/deploy.md, "Stack size").
    inlinePolicies: {
      PutIncoming: new PolicyDocument({ statements: [new PolicyStatement({ actions: ['s3:PutObject'], resources: [bucket.arnForObjects(`${INCOMING_PREFIX}*`)] })] }),
    },
  });
  Validations.of(role).acknowledge({
    id: `AwsSolutions-IAM5[Resource::${arnExportName}/${INCOMING_PREFIX}*]`,
    reason: `Upload keys are per customer and media item, unknown at deploy time; each session is narrowed to incoming/<userId>/ by its session policy.`,
  });
  return role;
}

/** The media bucket: its name, and exactly the object actions of `access` on its objects. */
export function bindBucket(fn: LambdaFunction, shared: SharedBucket, envVar: string, access: BucketAccess | readonly BucketAccess[]): void {
  setEnv(fn, envVar, shared.bucket.bucketName);
  const accesses = typeof access === 'string' ? [access] : [...access];
  if (accesses.includes('existence')) fn.addToRolePolicy(new PolicyStatement({ actions: ['s3:ListBucket'], resources: [shared.bucket.bucketArn] }));
  const byKeys = new Map<string, string[]>();
  if (accesses.includes('presignUpload')) {
    // Upload URLs are signed as the upload signer, never as this function (upload-signer.ts).
    setEnv(fn, ENV.mediaUploadSignerRoleArn, shared.uploadSigner.roleArn);
    fn.addToRolePolicy(new PolicyStatement({ actions: ['sts:AssumeRole'], resources: [shared.uploadSigner.roleArn] }));
  }
  for (const entry of accesses) {
    if (entry === 'existence' || entry === 'presignUpload') continue;
    const { action, keys } = OBJECT_ACTIONS[entry];
    const actions = byKeys.get(keys) ?? [];
    if (!actions.includes(action)) actions.push(action);
    byKeys.set(keys, actions);
  }
  for (const [keys, actions] of byKeys) {
    fn.addToRolePolicy(new PolicyStatement({ actions, resources: [shared.bucket.arnForObjects(keys)] }));
    acknowledgeWildcardResource(
      fn,
      `${shared.arnExportName}/${keys}`,
      `Media object keys are per media item and unknown at deploy time; the grant is ${actions.join(', ')} on ${keys === '*' ? 'the media bucket' : `the ${keys} keys of the media bucket`} only.`,
    );
  }
}

/** Plain configuration that is neither a resource nor a secret (the media base URL). */
export function bindValue(fn: LambdaFunction, envVar: string, value: string): void {
  setEnv(fn, envVar, value);
}

export interface Scheduling {
  /** The schedule group's name, a plain string (schedules are named per post inside it). */
  groupName: string;
  /** The role schedules run as: it may only send to the publish queue (and the schedules' DLQ). */
  role: IRole;
  /** Where a schedule that could not reach its target leaves its event. */
  deadLetterQueue: IQueue;
  /** The schedules' target. */
  targetQueue: IQueue;
}

export type SchedulerAction = 'create' | 'delete';

/**
 * EventBridge Scheduler: create and/or delete one-time schedules in the service's group (schedule
 * names are per post, so the resource is the group's schedules), and, to create, pass exactly the
 * scheduler role to the Scheduler service and nothing else.
 */
export function bindScheduler(fn: LambdaFunction, scheduling: Scheduling, actions: readonly SchedulerAction[]): void {
  setEnv(fn, ENV.schedulerGroup, scheduling.groupName);
  // Pseudo parameters rather than the stack's region/account, so the ARN prints the same with or
  // without an environment and the acknowledgement below matches it.
  const schedules = `arn:${Aws.PARTITION}:scheduler:${Aws.REGION}:${Aws.ACCOUNT_ID}:schedule/${scheduling.groupName}/*`;
  const iamActions = actions.map((action) => (action === 'create' ? 'scheduler:CreateSchedule' : 'scheduler:DeleteSchedule'));
  fn.addToRolePolicy(new PolicyStatement({ actions: iamActions, resources: [schedules] }));
  acknowledgeWildcardResource(
    fn,
    `arn:<AWS::Partition>:scheduler:<AWS::Region>:<AWS::AccountId>:schedule/${scheduling.groupName}/*`,
    'Schedules are named per post at run time; the grant covers the service’s own schedule group only.',
  );
  if (actions.includes('create')) {
    setEnv(fn, ENV.schedulerRoleArn, scheduling.role.roleArn);
    setEnv(fn, ENV.schedulerDlqArn, scheduling.deadLetterQueue.queueArn);
    setEnv(fn, ENV.publishQueueArn, scheduling.targetQueue.queueArn);
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['iam:PassRole'],
        resources: [scheduling.role.roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      }),
    );
  }
}

/** cdk-nag flags every `*` in a resource; one whose scope is still a single resource is acknowledged with its reason. */
function acknowledgeWildcardResource(fn: LambdaFunction, printedResource: string, reason: string): void {
  if (!fn.role) throw new Error(`${fn.node.path} has no role to grant to`);
  Validations.of(fn.role).acknowledge({ id: `AwsSolutions-IAM5[Resource::${printedResource}]`, reason });
}
