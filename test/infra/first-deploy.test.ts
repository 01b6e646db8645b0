/**
 * A first deploy on a fresh AWS account (issue 20), read off the synthesized templates: the Cognito
 * domain prefix is unique by default, a failed first create leaves nothing behind, the user pool
 * lives with the data, the optional custom domain and alarm notifications, the regions, and TOTP
 * MFA (issue 19, item 2). What only AWS can show is a written check in docs/deploy.md.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ENV } from '../../lib/config.js';
import { TABLES } from '../../lib/store/tables.js';
import { checkDomainPrefix, domainPrefixStem, SETTINGS, SUPPORTED_REGIONS } from '../../infra/stacks/deploy-settings.js';
import { DATA_STACK_NAME } from '../../infra/stacks/service.js';
import { describeValue, logicalId, synthesize, SYNTH_TEST_TIMEOUT_MS } from './synth.js';
import type { CfnResource, CfnTemplate, Synthesized } from './synth.js';

// Some tests synthesize the app again with other settings: seconds of CPU each, minutes on a loaded machine.
vi.setConfig({ testTimeout: SYNTH_TEST_TIMEOUT_MS });

let s: Synthesized;
beforeAll(() => {
  s = synthesize({ bundle: false });
});
afterAll(() => s?.cleanup());

/** Synthesizes with these settings, hands the result to `check`, and cleans up. */
function withSynth(options: Parameters<typeof synthesize>[0], check: (synth: Synthesized) => void): void {
  const synth = synthesize(options);
  try {
    check(synth);
  } finally {
    synth.cleanup();
  }
}

function resourcesOfType(template: CfnTemplate, type: string): [string, CfnResource][] {
  return Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);
}

function onlyResource(template: CfnTemplate, type: string): CfnResource {
  const found = resourcesOfType(template, type);
  expect(found, type).toHaveLength(1);
  return found[0]![1];
}

function environmentOf(synth: Synthesized, name: string): Record<string, unknown> {
  const fn = synth.service.api.functions.get(name)!;
  const props = synth.apiJson.Resources[logicalId(fn)]!.Properties as { Environment?: { Variables?: Record<string, unknown> } };
  return props.Environment?.Variables ?? {};
}

const COGNITO_PREFIX = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

describe('Cognito domain prefix', () => {
  it('defaults to the data stack name and the deploying account: unique across AWS, not a fixed name only the first deployer gets', () => {
    const domain = onlyResource(s.dataJson, 'AWS::Cognito::UserPoolDomain').Properties!;
    expect(domain.Domain).toEqual({ 'Fn::Join': ['-', ['social-publishing-data', { Ref: 'AWS::AccountId' }]] });
  });

  it('is a literal when the account is known, within Cognito’s pattern and 63 characters', () => {
    withSynth({ bundle: false, env: { account: '123456789012', region: 'eu-west-1' } }, (synth) => {
      const prefix = onlyResource(synth.dataJson, 'AWS::Cognito::UserPoolDomain').Properties!.Domain as string;
      expect(prefix).toBe('social-publishing-data-123456789012');
      expect(prefix).toMatch(COGNITO_PREFIX);
    });
  });

  it('derives a valid stem from any stack name: lower-case, allowed characters, no reserved word, room for the account id', () => {
    expect(domainPrefixStem(DATA_STACK_NAME)).toBe('social-publishing-data');
    expect(domainPrefixStem('MyAWSCognitoStack_2')).toBe('my-stack-2');
    expect(domainPrefixStem('Amazon')).toBe('settings');
    const long = domainPrefixStem(`Stack${'X'.repeat(200)}`);
    expect(`${long}-123456789012`.length).toBeLessThanOrEqual(63);
    for (const name of [DATA_STACK_NAME, 'MyAWSCognitoStack_2', 'a--b', `Stack-${'y'.repeat(70)}-`, 'Amazon']) {
      const prefix = `${domainPrefixStem(name)}-123456789012`;
      expect(() => checkDomainPrefix(prefix, 'derived'), name).not.toThrow();
    }
  });

  it('takes the operator’s own prefix, and refuses one Cognito would refuse, at synthesis', () => {
    withSynth({ bundle: false, context: { [SETTINGS.signInDomainPrefix]: 'acme-social-settings' } }, (synth) => {
      expect(onlyResource(synth.dataJson, 'AWS::Cognito::UserPoolDomain').Properties!.Domain).toBe('acme-social-settings');
    });
    for (const bad of ['Acme', '-acme', 'acme-', 'acme_settings', 'my-aws-login', 'cognito-acme', 'x'.repeat(64)]) {
      expect(() => synthesize({ bundle: false, context: { [SETTINGS.signInDomainPrefix]: bad } }), bad).toThrow(/signInDomainPrefix/);
    }
  });
});

describe('a failed first create leaves nothing behind', () => {
  it('keeps data on delete and on replacement, never on the rollback of its own first create', () => {
    for (const [template, stack] of [[s.dataJson, 'data'], [s.apiJson, 'api']] as const) {
      for (const [id, resource] of Object.entries(template.Resources)) {
        // "Retain" would keep what a rolled-back first create made: a pool, tables, a key to clean up by hand.
        expect(resource.DeletionPolicy, `${stack} ${id}`).not.toBe('Retain');
      }
    }
    const kept = Object.entries(s.dataJson.Resources).filter(([, resource]) => resource.DeletionPolicy === 'RetainExceptOnCreate');
    const keptTypes = kept.map(([, resource]) => resource.Type).sort();
    const tables = TABLES.filter((table) => table.holdsCustomerData).map(() => 'AWS::DynamoDB::Table');
    expect(keptTypes).toEqual(['AWS::Cognito::UserPool', ...tables, 'AWS::KMS::Key', 'AWS::S3::Bucket', 'AWS::S3::Bucket'].sort());
    for (const [id, resource] of kept) expect(resource.UpdateReplacePolicy, id).toBe('Retain');
  });

  it('has deletion protection on by default, and off with deletionProtection=false (the first deploy)', () => {
    const protectedTables = (synth: Synthesized) =>
      resourcesOfType(synth.dataJson, 'AWS::DynamoDB::Table')
        .filter(([, table]) => table.Properties!.DeletionProtectionEnabled === true)
        .map(([id]) => id);
    const pool = (synth: Synthesized) => onlyResource(synth.dataJson, 'AWS::Cognito::UserPool').Properties!;
    expect(pool(s).DeletionProtection).toBe('ACTIVE');
    expect(protectedTables(s)).toHaveLength(TABLES.filter((table) => table.holdsCustomerData).length);
    expect(protectedTables(s).length).toBeGreaterThan(0);
    withSynth({ bundle: false, context: { [SETTINGS.deletionProtection]: 'false' } }, (synth) => {
      expect(pool(synth).DeletionProtection).toBe('INACTIVE');
      expect(protectedTables(synth)).toEqual([]);
    });
    withSynth({ bundle: false, context: { [SETTINGS.deletionProtection]: true } }, (synth) => {
      expect(pool(synth).DeletionProtection).toBe('ACTIVE');
    });
    expect(() => synthesize({ bundle: false, context: { [SETTINGS.deletionProtection]: 'no' } })).toThrow(/deletionProtection must be true or false/);
  });
});

describe('the user pool belongs with the data', () => {
  it('is in the data stack with its domain; the app client and its branding are in the API stack', () => {
    expect(resourcesOfType(s.dataJson, 'AWS::Cognito::UserPool')).toHaveLength(1);
    expect(resourcesOfType(s.dataJson, 'AWS::Cognito::UserPoolDomain')).toHaveLength(1);
    expect(resourcesOfType(s.dataJson, 'AWS::Cognito::UserPoolClient')).toHaveLength(0);
    expect(resourcesOfType(s.apiJson, 'AWS::Cognito::UserPool')).toHaveLength(0);
    expect(resourcesOfType(s.apiJson, 'AWS::Cognito::UserPoolDomain')).toHaveLength(0);
    const client = onlyResource(s.apiJson, 'AWS::Cognito::UserPoolClient').Properties!;
    const branding = onlyResource(s.apiJson, 'AWS::Cognito::ManagedLoginBranding').Properties!;
    const poolId = logicalId(s.service.data.settingsUsers.userPool);
    for (const reference of [client.UserPoolId, branding.UserPoolId]) {
      const imported = (reference as { 'Fn::ImportValue'?: string })['Fn::ImportValue'];
      const output = Object.values(s.dataJson.Outputs ?? {}).find((candidate) => candidate.Export?.Name === imported);
      expect(output?.Value).toEqual({ Ref: poolId });
    }
  });

  it('so the data stack depends on nothing of the API stack (destroying and recreating it keeps the issuer)', () => {
    expect(JSON.stringify(s.dataJson)).not.toContain('Fn::ImportValue');
    expect(s.service.data.dependencies).toEqual([]);
    const issuer = environmentOf(s, 'SettingsSignIn')[ENV.oidcIssuerUrl] as { 'Fn::Join': [string, unknown[]] };
    const parts = issuer['Fn::Join'][1];
    expect(parts[0]).toBe('https://cognito-idp.');
    expect(parts).toContainEqual({ Ref: 'AWS::Region' });
    const imported = (parts.find((part) => typeof part === 'object' && part !== null && 'Fn::ImportValue' in part) as { 'Fn::ImportValue': string })['Fn::ImportValue'];
    const output = Object.values(s.dataJson.Outputs ?? {}).find((candidate) => candidate.Export?.Name === imported);
    expect(output?.Value).toEqual({ Ref: logicalId(s.service.data.settingsUsers.userPool) });
  });

  it('offers TOTP as optional MFA (issue 19, item 2), SMS off', () => {
    const pool = onlyResource(s.dataJson, 'AWS::Cognito::UserPool').Properties!;
    expect(pool.MfaConfiguration).toBe('OPTIONAL');
    expect(pool.EnabledMfas).toEqual(['SOFTWARE_TOKEN_MFA']);
    expect(pool.UserPoolTier).toBe('ESSENTIALS');
  });

  it('outputs the pool id and the managed login domain from the data stack', () => {
    expect(s.dataJson.Outputs?.SettingsUserPoolId?.Value).toEqual({ Ref: logicalId(s.service.data.settingsUsers.userPool) });
    expect(JSON.stringify(s.dataJson.Outputs?.SettingsSignInDomain?.Value)).toContain('.amazoncognito.com');
  });
});

describe('custom domain', () => {
  const DOMAIN = {
    [SETTINGS.domainName]: 'api.example.com',
    [SETTINGS.certificateArn]: 'arn:aws:acm:eu-west-1:123456789012:certificate/0a1b2c3d-1111-2222-3333-444455556666',
  };
  const ZONE = { [SETTINGS.hostedZoneId]: 'Z0123456789ABCDEFGHIJ', [SETTINGS.hostedZoneName]: 'example.com' };

  it('is off by default: the URLs are the HTTP API’s own endpoint', () => {
    expect(resourcesOfType(s.apiJson, 'AWS::ApiGatewayV2::DomainName')).toHaveLength(0);
    expect(resourcesOfType(s.apiJson, 'AWS::ApiGatewayV2::ApiMapping')).toHaveLength(0);
    expect(onlyResource(s.apiJson, 'AWS::ApiGatewayV2::Api').Properties!.DisableExecuteApiEndpoint).toBeFalsy();
    expect(JSON.stringify(s.apiJson.Outputs?.ApiBaseUrl?.Value)).toContain('ApiEndpoint');
  });

  it('serves the API, the settings app and the assistant server on the domain, so every URL survives a redeploy', () => {
    withSynth({ bundle: false, context: DOMAIN }, (synth) => {
      const domain = onlyResource(synth.apiJson, 'AWS::ApiGatewayV2::DomainName').Properties!;
      expect(domain.DomainName).toBe('api.example.com');
      expect(domain.DomainNameConfigurations).toEqual([
        expect.objectContaining({ CertificateArn: DOMAIN.certificateArn, EndpointType: 'REGIONAL', SecurityPolicy: 'TLS_1_2' }),
      ]);
      const mapping = onlyResource(synth.apiJson, 'AWS::ApiGatewayV2::ApiMapping') as CfnResource & { DependsOn?: string[] };
      expect(mapping.Properties).toMatchObject({ Stage: '$default', ApiId: { Ref: logicalId(synth.service.api.api) } });
      expect(mapping.DependsOn).toContain(resourcesOfType(synth.apiJson, 'AWS::ApiGatewayV2::Stage')[0]![0]);
      expect(onlyResource(synth.apiJson, 'AWS::ApiGatewayV2::Api').Properties!.DisableExecuteApiEndpoint).toBe(true);
      const outputs = synth.apiJson.Outputs!;
      expect(describeValue(outputs.ApiBaseUrl!.Value, synth)).toBe('https://api.example.com/api/v1');
      expect(describeValue(outputs.McpUrl!.Value, synth)).toBe('https://api.example.com/mcp');
      expect(describeValue(outputs.SettingsUrl!.Value, synth)).toBe('https://api.example.com/settings');
      expect(describeValue(outputs.XRedirectUrl!.Value, synth)).toBe('https://api.example.com/settings/connect/x/callback');
      expect(describeValue(outputs.LinkedInRedirectUrl!.Value, synth)).toBe('https://api.example.com/settings/connect/linkedin/callback');
      const client = onlyResource(synth.apiJson, 'AWS::Cognito::UserPoolClient').Properties!;
      expect(client.CallbackURLs).toEqual(['https://api.example.com/settings/auth/callback']);
      expect(client.LogoutURLs).toEqual(['https://api.example.com/settings']);
      for (const name of ['Mcp', 'OAuthAuthorize', 'SettingsAssistantConsent']) expect(environmentOf(synth, name)[ENV.serviceOrigin], name).toBe('https://api.example.com');
      for (const name of ['SettingsSignIn', 'SettingsOverview']) expect(environmentOf(synth, name)[ENV.settingsBaseUrl], name).toBe('https://api.example.com');
      // No hosted zone: the operator adds a CNAME to the printed target.
      expect(resourcesOfType(synth.apiJson, 'AWS::Route53::RecordSet')).toHaveLength(0);
      expect(synth.apiJson.Outputs?.CustomDomainTarget).toBeDefined();
    });
  });

  it('writes the alias record when given a Route 53 hosted zone', () => {
    withSynth({ bundle: false, context: { ...DOMAIN, ...ZONE } }, (synth) => {
      const record = onlyResource(synth.apiJson, 'AWS::Route53::RecordSet').Properties!;
      expect(record).toMatchObject({ HostedZoneId: ZONE.hostedZoneId, Name: 'api.example.com.', Type: 'A' });
      const domainId = resourcesOfType(synth.apiJson, 'AWS::ApiGatewayV2::DomainName')[0]![0];
      expect(record.AliasTarget).toEqual({
        DNSName: { 'Fn::GetAtt': [domainId, 'RegionalDomainName'] },
        HostedZoneId: { 'Fn::GetAtt': [domainId, 'RegionalHostedZoneId'] },
      });
    });
  });

  it('refuses half a setting, a malformed one, or a certificate from another region, at synthesis', () => {
    const refused = (context: Record<string, unknown>, message: RegExp, env?: { account: string; region: string }) =>
      expect(() => synthesize({ bundle: false, context, ...(env ? { env } : {}) })).toThrow(message);
    refused({ [SETTINGS.domainName]: 'api.example.com' }, /needs both context domainName and certificateArn/);
    refused({ [SETTINGS.certificateArn]: DOMAIN.certificateArn }, /needs both context domainName and certificateArn/);
    refused({ ...DOMAIN, [SETTINGS.domainName]: 'https://api.example.com/' }, /domainName must be a host name/);
    refused({ ...DOMAIN, [SETTINGS.certificateArn]: 'arn:aws:iam::123456789012:server-certificate/x' }, /certificateArn must be an ACM certificate ARN/);
    refused({ ...DOMAIN, [SETTINGS.hostedZoneId]: ZONE.hostedZoneId }, /go together/);
    refused({ ...DOMAIN, ...ZONE, [SETTINGS.hostedZoneName]: 'example.org' }, /is not in the hosted zone example.org/);
    refused(ZONE, /need domainName and certificateArn/);
    refused(DOMAIN, /certificate in its own region, us-east-1/, { account: '123456789012', region: 'us-east-1' });
  });
});

describe('alarm notifications', () => {
  const alarms = (synth: Synthesized) => resourcesOfType(synth.apiJson, 'AWS::CloudWatch::Alarm').map(([id, alarm]) => [id, alarm.Properties!] as const);

  it('are off by default: no alarm has an action', () => {
    expect(alarms(s)).toHaveLength(15);
    for (const [id, alarm] of alarms(s)) expect(alarm.AlarmActions, id).toBeUndefined();
    expect(resourcesOfType(s.apiJson, 'AWS::SNS::Topic')).toHaveLength(0);
  });

  it('with alarmEmail: a TLS-only topic with the address subscribed, and every alarm notifies it', () => {
    withSynth({ bundle: false, context: { [SETTINGS.alarmEmail]: 'ops@example.com' } }, (synth) => {
      const [topicId] = resourcesOfType(synth.apiJson, 'AWS::SNS::Topic')[0]!;
      const subscription = onlyResource(synth.apiJson, 'AWS::SNS::Subscription').Properties!;
      expect(subscription).toMatchObject({ Protocol: 'email', Endpoint: 'ops@example.com', TopicArn: { Ref: topicId } });
      const policy = onlyResource(synth.apiJson, 'AWS::SNS::TopicPolicy').Properties!;
      expect(JSON.stringify(policy.PolicyDocument)).toContain('"aws:SecureTransport":"false"');
      expect(alarms(synth)).toHaveLength(15);
      // An alarm beside a worker in its own stack names the topic through the API stack's export.
      for (const [id, alarm] of alarms(synth)) expect((alarm.AlarmActions as unknown[]).map((action) => describeValue(action, synth)), id).toEqual([describeValue({ Ref: topicId }, synth)]);
      expect(synth.apiJson.Outputs?.AlarmTopicArn?.Value).toEqual({ Ref: topicId });
    });
  });

  it('with alarmTopicArn: every alarm notifies that topic, and nothing is created', () => {
    const topicArn = 'arn:aws:sns:eu-west-1:123456789012:ops-pager';
    withSynth({ bundle: false, context: { [SETTINGS.alarmTopicArn]: topicArn } }, (synth) => {
      expect(resourcesOfType(synth.apiJson, 'AWS::SNS::Topic')).toHaveLength(0);
      for (const [id, alarm] of alarms(synth)) expect(alarm.AlarmActions, id).toEqual([topicArn]);
    });
  });

  it('refuses both at once, a malformed one, a FIFO topic, or a topic in another region', () => {
    const refused = (context: Record<string, unknown>, message: RegExp, env?: { account: string; region: string }) =>
      expect(() => synthesize({ bundle: false, context, ...(env ? { env } : {}) })).toThrow(message);
    refused({ [SETTINGS.alarmEmail]: 'ops@example.com', [SETTINGS.alarmTopicArn]: 'arn:aws:sns:eu-west-1:123456789012:ops' }, /not both/);
    refused({ [SETTINGS.alarmEmail]: 'ops' }, /alarmEmail must be an e-mail address/);
    refused({ [SETTINGS.alarmTopicArn]: 'arn:aws:sns:eu-west-1:123456789012:ops.fifo' }, /standard SNS topic/);
    refused({ [SETTINGS.alarmTopicArn]: 'arn:aws:sns:eu-west-1:123456789012:ops' }, /only topics in their own region, us-east-1/, { account: '123456789012', region: 'us-east-1' });
  });
});

describe('cdk-nag with every optional setting on', () => {
  it('leaves no unacknowledged finding: custom domain with its record, alarm e-mail topic, reserved concurrency, deletion protection off', () => {
    const context = {
      [SETTINGS.domainName]: 'api.example.com',
      [SETTINGS.certificateArn]: 'arn:aws:acm:eu-west-1:123456789012:certificate/0a1b2c3d-1111-2222-3333-444455556666',
      [SETTINGS.hostedZoneId]: 'Z0123456789ABCDEFGHIJ',
      [SETTINGS.hostedZoneName]: 'example.com',
      [SETTINGS.alarmEmail]: 'ops@example.com',
      [SETTINGS.deletionProtection]: 'false',
      publishWorkerReservedConcurrency: '100',
    };
    // Synthesis throws on an error finding; warnings land in the validation report.
    withSynth({ bundle: false, context, env: { account: '123456789012', region: 'eu-west-1' } }, (synth) => {
      const file = join(synth.assembly.directory, 'validation-report.json');
      const report = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { pluginReports: { violations: { ruleName: string }[] }[] }) : { pluginReports: [] };
      expect(report.pluginReports.flatMap((plugin) => plugin.violations.map((violation) => violation.ruleName))).toEqual([]);
      expect(resourcesOfType(synth.apiJson, 'AWS::ApiGatewayV2::DomainName')).toHaveLength(1);
      expect(resourcesOfType(synth.apiJson, 'AWS::SNS::Topic')).toHaveLength(1);
    });
  });
});

describe('regions', () => {
  it('fails at synthesis in a region it cannot deploy to, naming the ones it can', () => {
    for (const region of ['af-south-1', 'me-south-1', 'ap-east-1', 'eu-south-1', 'il-central-1']) {
      expect(() => synthesize({ bundle: false, env: { account: '123456789012', region } }), region).toThrow(
        new RegExp(`Region ${region}: This service deploys only to us-east-1, .*opt-in region`),
      );
    }
    withSynth({ bundle: false, env: { account: '123456789012', region: 'eu-central-1' } }, (synth) => {
      expect(synth.service.api.region).toBe('eu-central-1');
    });
  });

  it('leaves out the opt-in regions whose S3 buckets CloudFront cannot deliver standard logs to', () => {
    for (const region of ['af-south-1', 'ap-east-1', 'eu-south-1', 'me-south-1']) expect(SUPPORTED_REGIONS).not.toContain(region);
  });
});
