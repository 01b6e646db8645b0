/**
 * Everything that holds state the service cannot rebuild: the tables, the media library and its
 * CDN, the key that encrypts platform tokens, the secrets, and the settings app's user pool (its
 * id is every settings user's issuer). Kept apart from the functions so that redeploying, or even
 * destroying, the API stack never touches customer data or sign-in identities.
 *
 * What is kept when the stack goes is kept with RetainExceptOnCreate: a failed first create rolls
 * back to nothing (there is no data yet), while a delete or a replacement keeps it. Deletion
 * protection (tables, pool) is a setting, off for the first deploy (deploy-settings.ts).
 */
import { CfnOutput, Duration, RemovalPolicy, SecretValue, Stack, Validations } from 'aws-cdk-lib';
import type { StackProps } from 'aws-cdk-lib';
import { AllowedMethods, CachePolicy, Distribution, HttpVersion, PriceClass, ResponseHeadersPolicy, ViewerProtocolPolicy } from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { AttributeType, BillingMode, ProjectionType, StreamViewType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { SettingsUserPool } from '../constructs/settings-sign-in.js';
import { INCOMING_EXPIRY_DAYS, INCOMING_PREFIX, MEDIA_CONTENT_SECURITY_POLICY } from '../../lib/domain/media-library.js';
import { TABLES } from '../../lib/store/tables.js';
import type { TableDefinition } from '../../lib/store/tables.js';
import { deletionProtectionSetting, signInDomainPrefixSetting } from './deploy-settings.js';
import { postsWarmWriteUnits } from './publish-throughput.js';

/** The logical names of lib/store/tables.ts TABLES (checked at synthesis: a new table must be named here). */
export const TABLE_NAMES = ['directory', 'posts', 'idempotency', 'counters', 'sessions', 'oauth', 'webhooks'] as const;
export type TableName = (typeof TABLE_NAMES)[number];

function isTableName(name: string): name is TableName {
  return (TABLE_NAMES as readonly string[]).includes(name);
}

/** What the platform-credentials secret holds until the operator puts the real app credentials in (docs/deploy.md). */
export const PLATFORM_CREDENTIALS_PLACEHOLDER = {
  x: { clientId: '', clientSecret: '' },
  linkedin: { clientId: '', clientSecret: '' },
};

export class DataStack extends Stack {
  readonly tables: Record<TableName, Table>;
  readonly tableDefinitions: Record<TableName, TableDefinition>;
  readonly mediaBucket: Bucket;
  /** Export of the media bucket's ARN, by a fixed name (see SharedBucket in bindings.ts). */
  readonly mediaBucketArnExportName: string;
  readonly mediaDistribution: Distribution;
  /** https://<distribution domain>: the prefix of every hosted media URL. */
  readonly mediaBaseUrl: string;
  readonly tokenKey: Key;
  readonly cursorSigningKey: Secret;
  readonly platformCredentials: Secret;
  /** The settings app's Cognito user pool and its managed login domain (the app client is in the API stack). */
  readonly settingsUsers: SettingsUserPool;

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);
    const deletionProtection = deletionProtectionSetting(this);

    const tables: Partial<Record<TableName, Table>> = {};
    const definitions: Partial<Record<TableName, TableDefinition>> = {};
    // Pre-warmed for a burst of posts due at one second (publish-throughput.ts): the posts table and its indexes.
    const postsWarmWrites = postsWarmWriteUnits(this);
    for (const definition of TABLES) {
      const name = definition.name;
      const warmThroughput = name === 'posts' && postsWarmWrites !== undefined ? { warmThroughput: { writeUnitsPerSecond: postsWarmWrites } } : {};
      if (!isTableName(name)) throw new Error(`Table ${name} of lib/store/tables.ts is missing from TABLE_NAMES`);
      const table = new Table(this, tableId(definition.name), {
        partitionKey: { name: definition.partitionKey, type: AttributeType.STRING },
        ...(definition.sortKey ? { sortKey: { name: definition.sortKey, type: AttributeType.STRING } } : {}),
        billingMode: BillingMode.PAY_PER_REQUEST,
        // Encrypted at rest with the DynamoDB-owned key: no KMS charge per request.
        encryption: TableEncryption.DEFAULT,
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
        ...(definition.ttlAttribute ? { timeToLiveAttribute: definition.ttlAttribute } : {}),
        // The webhook router's source (an in-place update on a deployed table, no replacement).
        ...(definition.stream ? { stream: StreamViewType[definition.stream] } : {}),
        deletionProtection: definition.holdsCustomerData && deletionProtection,
        // Idempotency records are 24-hour replay memory, not customer data: they go with the stack.
        removalPolicy: definition.holdsCustomerData ? KEEP : RemovalPolicy.DESTROY,
        ...warmThroughput,
      });
      for (const index of definition.indexes) {
        table.addGlobalSecondaryIndex({
          indexName: index.indexName,
          partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
          ...(index.sortKey ? { sortKey: { name: index.sortKey, type: AttributeType.STRING } } : {}),
          projectionType: ProjectionType[index.projection.type],
          ...(index.projection.type === 'INCLUDE' ? { nonKeyAttributes: [...index.projection.attributes] } : {}),
          ...warmThroughput,
        });
      }
      tables[name] = table;
      definitions[name] = definition;
      new CfnOutput(this, `${tableId(definition.name)}Name`, {
        value: table.tableName,
        description: `${definition.envVar} for the admin CLI`,
      });
    }
    const missing = TABLE_NAMES.filter((name) => !tables[name]);
    if (missing.length > 0) throw new Error(`TABLE_NAMES lists tables lib/store/tables.ts does not declare: ${missing.join(', ')}`);
    this.tables = tables as Record<TableName, Table>;
    this.tableDefinitions = definitions as Record<TableName, TableDefinition>;

    // Server access logs of the media bucket and the CDN's access logs. CloudFront's standard
    // logs are delivered through bucket ACLs, hence the object-writer ownership on this bucket only.
    const accessLogs = new Bucket(this, 'AccessLogs', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.OBJECT_WRITER,
      lifecycleRules: [{ expiration: Duration.days(90) }],
      removalPolicy: KEEP,
    });
    Validations.of(accessLogs).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'This is the access-log bucket itself; logging its own access would log the logging.',
    });

    this.mediaBucket = new Bucket(this, 'Media', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      serverAccessLogsBucket: accessLogs,
      serverAccessLogsPrefix: 'media-bucket/',
      versioned: false,
      removalPolicy: KEEP,
      // Browser uploads land under incoming/ and are moved out when registered: what is left
      // there was never registered (abandoned, or refused and not yet deleted) and goes.
      lifecycleRules: [
        { id: 'ExpireUnregisteredUploads', prefix: INCOMING_PREFIX, expiration: Duration.days(INCOMING_EXPIRY_DAYS), abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
    });

    this.mediaBucketArnExportName = `${this.stackName}-MediaBucketArn`;
    this.exportValue(this.mediaBucket.bucketArn, { name: this.mediaBucketArnExportName });

    // The bucket is private; CloudFront reads it through origin access control (the bucket policy
    // names this distribution only) and serves it over HTTPS only.
    // Every media answer: no type sniffing, and a file opened on its own runs and reaches nothing
    // (the local /media route sends the same, lib/domain/media-library.ts MEDIA_RESPONSE_HEADERS).
    const mediaHeaders = new ResponseHeadersPolicy(this, 'MediaResponseHeaders', {
      comment: 'Hosted media: nosniff and a sandboxing CSP',
      securityHeadersBehavior: {
        contentTypeOptions: { override: true },
        contentSecurityPolicy: { contentSecurityPolicy: MEDIA_CONTENT_SECURITY_POLICY, override: true },
      },
    });
    this.mediaDistribution = new Distribution(this, 'MediaCdn', {
      comment: 'Hosted media of the social publishing API',
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.mediaBucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: mediaHeaders,
        compress: true,
      },
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      enableLogging: true,
      logBucket: accessLogs,
      logFilePrefix: 'media-cdn/',
    });
    this.mediaBaseUrl = `https://${this.mediaDistribution.distributionDomainName}`;
    // The CDN reads the whole bucket (origin access control) but never an upload not registered yet.
    this.mediaBucket.addToResourcePolicy(
      new PolicyStatement({
        sid: 'NeverServeUnregisteredUploads',
        effect: Effect.DENY,
        principals: [new ServicePrincipal('cloudfront.amazonaws.com')],
        actions: ['s3:GetObject'],
        resources: [this.mediaBucket.arnForObjects(`${INCOMING_PREFIX}*`)],
      }),
    );
    Validations.of(this.mediaDistribution).acknowledge({
      id: 'AwsSolutions-CFR1',
      reason: 'Media is posted to public social networks and fetched worldwide; a geo restriction would break it.',
    });
    Validations.of(this.mediaDistribution).acknowledge({
      id: 'AwsSolutions-CFR2',
      reason:
        'Read-only, cacheable GETs of objects already public on the social networks; a web ACL (from $5/month plus requests) buys little here. Add one if abuse shows in the CDN logs.',
    });
    Validations.of(this.mediaDistribution).acknowledge({
      id: 'AwsSolutions-CFR4',
      reason:
        'Uses the default *.cloudfront.net certificate, whose minimum protocol CloudFront fixes at TLSv1; HTTPS only is enforced. With a custom domain set minimumProtocolVersion TLSv1.2_2021.',
    });

    this.tokenKey = new Key(this, 'PlatformTokenKey', {
      description: 'Encrypts platform access and refresh tokens; the account id is bound in as encryption context',
      enableKeyRotation: true,
      // Without it no stored token can be decrypted again.
      removalPolicy: KEEP,
    });

    this.cursorSigningKey = new Secret(this, 'CursorSigningKey', {
      description: 'Signs the nextCursor of GET /posts so a cursor from elsewhere is invalid_cursor',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
    });
    Validations.of(this.cursorSigningKey).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Rotating it only invalidates the list cursors in flight; rotate by hand (put a new value) if it leaks. A rotation Lambda would cost more than it protects.',
    });

    // Platform app credentials (OAuth client id and secret per platform) come from the platforms'
    // developer consoles; the operator puts them in after the first deploy (docs/deploy.md). The template
    // holds only the empty shape, never a credential.
    this.platformCredentials = new Secret(this, 'PlatformCredentials', {
      description: 'OAuth client ids and secrets of the X and LinkedIn apps, as JSON',
      // unsafePlainText is named for the general case: this value is an empty shape, not a secret.
      secretStringValue: SecretValue.unsafePlainText(JSON.stringify(PLATFORM_CREDENTIALS_PLACEHOLDER)),
    });
    Validations.of(this.platformCredentials).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason: 'Issued by the platforms’ developer consoles and can only be rotated there; the operator puts each new value in (docs/deploy.md).',
    });

    this.settingsUsers = new SettingsUserPool(this, 'SettingsUserPool', {
      ...optional('domainPrefix', signInDomainPrefixSetting(this)),
      deletionProtection,
    });

    new CfnOutput(this, 'MediaDomain', { value: this.mediaDistribution.distributionDomainName, description: 'Domain of hosted media URLs' });
    new CfnOutput(this, 'MediaBaseUrl', { value: this.mediaBaseUrl, description: 'MEDIA_BASE_URL for the admin CLI' });
    new CfnOutput(this, 'MediaBucketName', { value: this.mediaBucket.bucketName, description: 'MEDIA_BUCKET for the admin CLI' });
    new CfnOutput(this, 'TokenKeyArn', { value: this.tokenKey.keyArn, description: 'TOKEN_KMS_KEY_ID for the admin CLI' });
    new CfnOutput(this, 'PlatformCredentialsSecretArn', {
      value: this.platformCredentials.secretArn,
      description: 'Put the X / LinkedIn app credentials here (docs/deploy.md)',
    });
    new CfnOutput(this, 'SettingsUserPoolId', { value: this.settingsUsers.userPool.userPoolId });
    new CfnOutput(this, 'SettingsSignInDomain', { value: this.settingsUsers.domain.baseUrl(), description: 'Cognito managed login' });
  }
}

/**
 * What holds customer data is kept on delete and on replacement, not when its own first create
 * fails: CloudFormation's RetainExceptOnCreate, so a failed first deploy leaves nothing behind.
 */
const KEEP = RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE;

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

export function tableId(name: string): string {
  return `${name.charAt(0).toUpperCase()}${name.slice(1)}Table`;
}
