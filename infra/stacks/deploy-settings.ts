/**
 * The deploy-time settings of the CDK app, read from cdk context (`npx cdk deploy --all -c key=value`,
 * or a "context" entry in cdk.json) in one place, each checked at synthesis with a message that
 * names the setting. docs/deploy.md, "Settings" lists them; the publish worker's
 * throughput settings are in publish-throughput.ts and api-stack.ts (reserved concurrency).
 */
import type { Construct } from 'constructs';

export const SETTINGS = {
  signInDomainPrefix: 'signInDomainPrefix',
  deletionProtection: 'deletionProtection',
  domainName: 'domainName',
  certificateArn: 'certificateArn',
  hostedZoneId: 'hostedZoneId',
  hostedZoneName: 'hostedZoneName',
  alarmEmail: 'alarmEmail',
  alarmTopicArn: 'alarmTopicArn',
} as const;

export class DeploySettingError extends Error {
  readonly code = 'deploy_setting_invalid';
  constructor(message: string) {
    super(message);
    this.name = 'DeploySettingError';
  }
}

/** A context value as text; '' and undefined are "not set" (so `-c alarmEmail=` unsets it). */
function text(scope: Construct, key: string): string | undefined {
  const raw: unknown = scope.node.tryGetContext(key);
  if (raw === undefined || raw === null || raw === '') return undefined;
  if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean') {
    throw new DeploySettingError(`context ${key} must be a single value, got ${JSON.stringify(raw)}`);
  }
  return String(raw).trim();
}

/**
 * Cognito prefix domains (<prefix>.auth.<region>.amazoncognito.com): 1-63 lower-case letters,
 * digits and hyphens, not starting or ending with a hyphen (CreateUserPoolDomain's pattern), and
 * Cognito refuses a prefix containing "aws", "amazon" or "cognito".
 */
const DOMAIN_PREFIX_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const DOMAIN_PREFIX_RESERVED = ['aws', 'amazon', 'cognito'];

export function checkDomainPrefix(prefix: string, source: string): string {
  if (!DOMAIN_PREFIX_PATTERN.test(prefix)) {
    throw new DeploySettingError(
      `${source} must be 1-63 lower-case letters, digits and hyphens, not starting or ending with a hyphen; got ${JSON.stringify(prefix)}`,
    );
  }
  const reserved = DOMAIN_PREFIX_RESERVED.find((word) => prefix.includes(word));
  if (reserved) throw new DeploySettingError(`${source} may not contain "${reserved}" (Cognito refuses it); got ${JSON.stringify(prefix)}`);
  return prefix;
}

/** An AWS account id: 12 digits. */
const ACCOUNT_ID_LENGTH = 12;

/**
 * The stem of the default Cognito domain prefix, from the stack name: kebab-case, only the
 * characters Cognito allows, without its reserved words, short enough that "<stem>-<account id>"
 * stays within 63 characters. The account id makes it unique across AWS (an id is one account's),
 * the stack name unique within the account and region.
 */
export function domainPrefixStem(stackName: string): string {
  let stem = stackName
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-');
  for (const word of DOMAIN_PREFIX_RESERVED) stem = stem.split(word).join('');
  stem = stem.replace(/-+/g, '-').replace(/^-|-$/g, '').slice(0, 63 - 1 - ACCOUNT_ID_LENGTH).replace(/-$/, '');
  return stem === '' ? 'settings' : stem;
}

/** The operator's own prefix (`-c signInDomainPrefix=...`), checked; undefined for the derived default. */
export function signInDomainPrefixSetting(scope: Construct): string | undefined {
  const value = text(scope, SETTINGS.signInDomainPrefix);
  return value === undefined ? undefined : checkDomainPrefix(value, `context ${SETTINGS.signInDomainPrefix}`);
}

/**
 * Deletion protection of what holds customers' data (the tables with customer data, the user
 * pool). On by default; a first deploy runs with it off (`-c deletionProtection=false`), so that
 * a failed first create rolls back completely: DynamoDB and Cognito refuse to delete a protected
 * table or pool, CloudFormation too, and the rollback would leave them behind (docs/deploy.md, "First deploy").
 */
export function deletionProtectionSetting(scope: Construct): boolean {
  const value = text(scope, SETTINGS.deletionProtection);
  if (value === undefined || value === 'true') return true;
  if (value === 'false') return false;
  throw new DeploySettingError(`context ${SETTINGS.deletionProtection} must be true or false, got ${JSON.stringify(value)}`);
}

export interface CustomDomainSetting {
  /** api.example.com: the API, the settings app and the assistant server are all served on it. */
  domainName: string;
  /** An ACM certificate in the stack's own region covering domainName (API Gateway regional endpoint). */
  certificateArn: string;
  /** When set, the stack writes the alias record in this Route 53 hosted zone; otherwise you add a CNAME. */
  hostedZone?: { id: string; name: string };
}

const DOMAIN_NAME_PATTERN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const CERTIFICATE_ARN_PATTERN = /^arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate\/[A-Za-z0-9-]+$/;
const HOSTED_ZONE_ID_PATTERN = /^Z[A-Z0-9]{1,31}$/;

export function customDomainSetting(scope: Construct): CustomDomainSetting | undefined {
  const domainName = text(scope, SETTINGS.domainName)?.toLowerCase();
  const certificateArn = text(scope, SETTINGS.certificateArn);
  const hostedZoneId = text(scope, SETTINGS.hostedZoneId);
  const hostedZoneName = text(scope, SETTINGS.hostedZoneName)?.toLowerCase().replace(/\.$/, '');
  if (domainName === undefined && certificateArn === undefined) {
    if (hostedZoneId !== undefined || hostedZoneName !== undefined) {
      throw new DeploySettingError(`context ${SETTINGS.hostedZoneId} and ${SETTINGS.hostedZoneName} need ${SETTINGS.domainName} and ${SETTINGS.certificateArn}`);
    }
    return undefined;
  }
  if (domainName === undefined || certificateArn === undefined) {
    throw new DeploySettingError(`A custom domain needs both context ${SETTINGS.domainName} and ${SETTINGS.certificateArn}`);
  }
  if (!DOMAIN_NAME_PATTERN.test(domainName)) throw new DeploySettingError(`context ${SETTINGS.domainName} must be a host name such as api.example.com, got ${JSON.stringify(domainName)}`);
  if (!CERTIFICATE_ARN_PATTERN.test(certificateArn)) {
    throw new DeploySettingError(`context ${SETTINGS.certificateArn} must be an ACM certificate ARN (arn:aws:acm:<region>:<account>:certificate/<id>), got ${JSON.stringify(certificateArn)}`);
  }
  if ((hostedZoneId === undefined) !== (hostedZoneName === undefined)) {
    throw new DeploySettingError(`context ${SETTINGS.hostedZoneId} and ${SETTINGS.hostedZoneName} go together (the zone's id and its name, such as example.com)`);
  }
  if (hostedZoneId === undefined || hostedZoneName === undefined) return { domainName, certificateArn };
  if (!HOSTED_ZONE_ID_PATTERN.test(hostedZoneId)) throw new DeploySettingError(`context ${SETTINGS.hostedZoneId} must be a Route 53 hosted zone id such as Z0123456789ABCDEFGHIJ, got ${JSON.stringify(hostedZoneId)}`);
  if (domainName !== hostedZoneName && !domainName.endsWith(`.${hostedZoneName}`)) {
    throw new DeploySettingError(`context ${SETTINGS.domainName} (${domainName}) is not in the hosted zone ${hostedZoneName}`);
  }
  return { domainName, certificateArn, hostedZone: { id: hostedZoneId, name: hostedZoneName } };
}

export type AlarmNotificationSetting = { email: string } | { topicArn: string };

const EMAIL_PATTERN = /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{2,63}$/;
const TOPIC_ARN_PATTERN = /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}(\.fifo)?$/;

/** Where every alarm notifies: a new SNS topic with this e-mail subscribed, or an existing topic. */
export function alarmNotificationSetting(scope: Construct): AlarmNotificationSetting | undefined {
  const email = text(scope, SETTINGS.alarmEmail);
  const topicArn = text(scope, SETTINGS.alarmTopicArn);
  if (email !== undefined && topicArn !== undefined) {
    throw new DeploySettingError(`Set context ${SETTINGS.alarmEmail} or ${SETTINGS.alarmTopicArn}, not both (subscribe the e-mail to your topic instead)`);
  }
  if (email !== undefined) {
    if (!EMAIL_PATTERN.test(email)) throw new DeploySettingError(`context ${SETTINGS.alarmEmail} must be an e-mail address, got ${JSON.stringify(email)}`);
    return { email };
  }
  if (topicArn !== undefined) {
    if (!TOPIC_ARN_PATTERN.test(topicArn) || topicArn.endsWith('.fifo')) {
      throw new DeploySettingError(`context ${SETTINGS.alarmTopicArn} must be the ARN of a standard SNS topic (CloudWatch cannot notify a FIFO topic), got ${JSON.stringify(topicArn)}`);
    }
    return { topicArn };
  }
  return undefined;
}

/**
 * The regions this service deploys to: the commercial regions AWS enables for every account.
 * Opt-in regions (af-south-1, ap-east-1, eu-south-1, me-south-1 and the newer ones) are left out:
 * CloudFront does not deliver standard logs to buckets there, and the media CDN's logs go to a
 * bucket in the stack's region (data-stack.ts). Each of these has every service the stacks use
 * (HTTP APIs, Lambda on arm64, EventBridge Scheduler, Cognito managed login, DynamoDB, SQS, KMS,
 * Secrets Manager); docs/deploy.md, "Regions" says how that was checked.
 */
export const SUPPORTED_REGIONS = [
  'us-east-1',
  'us-east-2',
  'us-west-1',
  'us-west-2',
  'ca-central-1',
  'sa-east-1',
  'eu-west-1',
  'eu-west-2',
  'eu-west-3',
  'eu-central-1',
  'eu-north-1',
  'ap-south-1',
  'ap-northeast-1',
  'ap-northeast-2',
  'ap-northeast-3',
  'ap-southeast-1',
  'ap-southeast-2',
] as const;

export const UNSUPPORTED_REGION_MESSAGE = `This service deploys only to ${SUPPORTED_REGIONS.join(', ')} (docs/deploy.md, "Regions": CloudFront cannot deliver the media CDN's standard logs to a bucket in an opt-in region)`;

/**
 * Throws at synthesis for a region the stacks cannot work in. `cdk deploy` always knows the region
 * (from the credentials), so a deploy stops here before anything is created. An environment-agnostic
 * template deployed some other way is not checked: a CloudFormation rule on the AWS::Region pseudo
 * parameter would do it, but whether CloudFormation accepts a pseudo parameter in a rule could not
 * be verified from here, and a rule it refuses would fail every deploy.
 */
export function checkRegion(region: string | undefined): void {
  if (region === undefined || region === '') return;
  if (!(SUPPORTED_REGIONS as readonly string[]).includes(region)) throw new DeploySettingError(`Region ${region}: ${UNSUPPORTED_REGION_MESSAGE}`);
}
