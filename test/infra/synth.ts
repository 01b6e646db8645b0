/**
 * Synthesizes the service exactly as `npx cdk synth` does (same builder, same cdk.json context)
 * into a temporary directory, and reads the templates back in the shape the tests ask about:
 * which function may do what to which resource, with cross-stack imports resolved to names.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import type { CfnElement, Environment } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { CloudAssembly } from 'aws-cdk-lib/cx-api';
import type { IConstruct } from 'constructs';
import { REPO_ROOT } from '../../infra/constructs/service-function.js';
import { buildService } from '../../infra/stacks/service.js';
import type { Service } from '../../infra/stacks/service.js';

export interface Synthesized {
  service: Service;
  assembly: CloudAssembly;
  data: Template;
  /**
   * The stacks that hold functions (the API stack and layout.ts's others) as one template: their
   * resources keep distinct logical ids, and a cross-stack reference reads as what it refers to
   * (describeValue), so a test asks what a function may do whichever stack holds it.
   */
  api: Template;
  dataJson: CfnTemplate;
  apiJson: CfnTemplate;
  /** Each stack's own template, by stack name. */
  stacks: Map<string, CfnTemplate>;
  /** Logical id (either stack) -> readable name such as `table:posts` or `queue:publish`. */
  labels: Map<string, string>;
  cleanup(): void;
}

export interface CfnResource {
  Type: string;
  Properties?: Record<string, unknown>;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
}

export interface CfnTemplate {
  Resources: Record<string, CfnResource>;
  Outputs?: Record<string, { Value: unknown; Export?: { Name: string } }>;
}

/** A test that synthesizes the app once more: a few seconds of CPU, several times that on a machine another run keeps busy. */
export const SYNTH_TEST_TIMEOUT_MS = 180_000;

/**
 * `bundle: false` skips esbuild (template-only tests); the synthesized template is otherwise the
 * same. `context`: values as given with `cdk deploy -c key=value`, over cdk.json's. `env`: the
 * account and region `cdk deploy` takes from your credentials (unset: environment-agnostic).
 */
export function synthesize(options: { bundle: boolean; context?: Record<string, unknown>; env?: Environment }): Synthesized {
  const cdkJson = JSON.parse(readFileSync(path.join(REPO_ROOT, 'cdk.json'), 'utf8')) as { context?: Record<string, unknown> };
  const outdir = mkdtempSync(path.join(tmpdir(), 'cdk-test-'));
  const context: Record<string, unknown> = { ...(cdkJson.context ?? {}) };
  Object.assign(context, options.context ?? {});
  if (!options.bundle) context['aws:cdk:bundling-stacks'] = [];
  const app = new App({ outdir, context });
  const build = () => buildService(app, options.env ? { env: options.env } : {});
  const service = options.bundle ? withEsbuildStraight(build) : build();
  const assembly = app.synth();
  const data = Template.fromStack(service.data);
  const stacks = new Map(service.stacks.map((stack) => [stack.stackName, Template.fromStack(stack).toJSON() as CfnTemplate]));
  const apiJson = mergedTemplate([service.api, ...service.functionStacks.values()].map((stack) => stacks.get(stack.stackName)!));
  return {
    service,
    assembly,
    data,
    api: Template.fromJSON(apiJson),
    dataJson: data.toJSON() as CfnTemplate,
    apiJson,
    stacks,
    labels: labelsOf(service),
    cleanup: () => rmSync(outdir, { recursive: true, force: true }),
  };
}

/**
 * Runs `build` with CDK calling the repository's esbuild binary itself rather than through
 * `npx --no-install esbuild`, which is what it runs when esbuild is a dependency of the project
 * (aws-lambda-nodejs's PackageInstallation): the same binary with the same arguments, so the same
 * bundles byte for byte (bundles.test.ts compares them with esbuild's own API), without starting
 * npm once per function, which took longer than esbuild's bundling itself. `Bundling` is not
 * exported; its cached installation is what `clearEsbuildInstallationCache()` resets. Should a
 * CDK release rename it, the synthesis still runs, through npx, only slower.
 */
function withEsbuildStraight<T>(build: () => T): T {
  const require = createRequire(import.meta.url);
  const bundlingModule = path.join(path.dirname(require.resolve('aws-cdk-lib')), 'aws-lambda-nodejs', 'lib', 'bundling.js');
  const { Bundling } = require(bundlingModule) as { Bundling?: { esbuildInstallation?: { isWorkspacePackage: boolean; version: string } } };
  if (!Bundling || !('esbuildInstallation' in Bundling)) return build();
  const { version } = JSON.parse(readFileSync(require.resolve('esbuild/package.json'), 'utf8')) as { version: string };
  const before = { installation: Bundling.esbuildInstallation, path: process.env.PATH };
  Bundling.esbuildInstallation = { isWorkspacePackage: false, version };
  process.env.PATH = [path.join(REPO_ROOT, 'node_modules', '.bin'), process.env.PATH].filter(Boolean).join(path.delimiter);
  try {
    return build();
  } finally {
    Bundling.esbuildInstallation = before.installation;
    if (before.path === undefined) delete process.env.PATH;
    else process.env.PATH = before.path;
  }
}

/** Several stacks' resources and outputs in one template (their logical ids are distinct: the layout test holds that). */
function mergedTemplate(templates: CfnTemplate[]): CfnTemplate {
  const merged: CfnTemplate = { Resources: {}, Outputs: {} };
  for (const template of templates) {
    for (const [id, resource] of Object.entries(template.Resources)) {
      if (merged.Resources[id]) throw new Error(`Logical id ${id} is in two stacks`);
      merged.Resources[id] = resource;
    }
    Object.assign(merged.Outputs!, template.Outputs ?? {});
  }
  return merged;
}

export function logicalId(construct: IConstruct): string {
  const stack = Stack.of(construct);
  const element = (construct.node.defaultChild ?? construct) as CfnElement;
  return stack.getLogicalId(element);
}

function labelsOf({ data, api }: Service): Map<string, string> {
  const labels = new Map<string, string>();
  for (const [name, table] of Object.entries(data.tables)) labels.set(logicalId(table), `table:${name}`);
  labels.set(logicalId(data.mediaBucket), 'bucket:media');
  labels.set(logicalId(data.tokenKey), 'key:tokens');
  labels.set(logicalId(data.cursorSigningKey), 'secret:cursor');
  labels.set(logicalId(data.platformCredentials), 'secret:platform');
  labels.set(logicalId(api.publishQueue), 'queue:publish');
  labels.set(logicalId(api.deletionQueue), 'queue:deletion');
  labels.set(logicalId(api.publishQueue.deadLetterQueue!.queue), 'queue:publish-dlq');
  labels.set(logicalId(api.deletionQueue.deadLetterQueue!.queue), 'queue:deletion-dlq');
  labels.set(logicalId(api.schedulerDeadLetterQueue), 'queue:scheduler-dlq');
  labels.set(logicalId(api.webhookQueue), 'queue:webhook');
  labels.set(logicalId(api.webhookQueue.deadLetterQueue!.queue), 'queue:webhook-dlq');
  labels.set(logicalId(api.mediaImportQueue), 'queue:mediaImport');
  labels.set(logicalId(api.mediaImportQueue.deadLetterQueue!.queue), 'queue:mediaImport-dlq');
  labels.set(logicalId(api.schedulerRole), 'role:scheduler');
  labels.set(logicalId(api.mediaUploadSigner), 'role:media-upload-signer');
  labels.set(logicalId(api.scheduleGroup), 'schedule-group');
  for (const [face, group] of Object.entries(api.logGroups)) labels.set(logicalId(group), `logs:${face}`);
  for (const [name, fn] of api.functions) {
    labels.set(logicalId(fn), `function:${name}`);
    labels.set(logicalId(fn.role!), `role:${name}`);
  }
  return labels;
}

/** A CloudFormation value as readable text: `table:posts/index/byUser`, `<AWS::Region>`, ... */
export function describeValue(value: unknown, s: Pick<Synthesized, 'labels' | 'dataJson'> & Partial<Pick<Synthesized, 'apiJson'>>): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map((item) => describeValue(item, s)).join(',');
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    if ('Ref' in record) {
      const ref = record.Ref as string;
      return ref.startsWith('AWS::') ? `<${ref}>` : (s.labels.get(ref) ?? `?${ref}`);
    }
    if ('Fn::GetAtt' in record) {
      const [id] = record['Fn::GetAtt'] as [string, string];
      return s.labels.get(id) ?? `?${id}`;
    }
    if ('Fn::ImportValue' in record) {
      const name = record['Fn::ImportValue'] as string;
      const outputs = [...Object.values(s.dataJson.Outputs ?? {}), ...Object.values(s.apiJson?.Outputs ?? {})];
      const output = outputs.find((candidate) => candidate.Export?.Name === name);
      if (!output) return `?import:${name}`;
      return describeValue(output.Value, s);
    }
    if ('Fn::Join' in record) {
      const [separator, parts] = record['Fn::Join'] as [string, unknown[]];
      return parts.map((part) => describeValue(part, s)).join(separator);
    }
  }
  return JSON.stringify(value);
}

export interface Grant {
  actions: string[];
  resources: string[];
  conditions: unknown;
}

function asArray<T>(value: T | T[] | undefined): T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** Every Allow statement that applies to a role: its inline policies and every AWS::IAM::Policy attached to it. */
export function grantsOfRole(s: Synthesized, roleLogicalId: string, template: CfnTemplate = s.apiJson): Grant[] {
  const documents: unknown[] = [];
  const role = template.Resources[roleLogicalId];
  if (!role) throw new Error(`No role ${roleLogicalId}`);
  for (const policy of asArray(role.Properties?.Policies as { PolicyDocument: unknown }[] | undefined)) documents.push(policy.PolicyDocument);
  for (const resource of Object.values(template.Resources)) {
    if (resource.Type !== 'AWS::IAM::Policy') continue;
    const roles = asArray(resource.Properties?.Roles as unknown[] | undefined);
    if (roles.some((ref) => (ref as { Ref?: string }).Ref === roleLogicalId)) documents.push(resource.Properties?.PolicyDocument);
  }
  const grants: Grant[] = [];
  for (const document of documents) {
    for (const statement of asArray((document as { Statement: Record<string, unknown>[] }).Statement)) {
      if (statement.Effect !== 'Allow') continue;
      grants.push({
        actions: asArray(statement.Action as string | string[]),
        resources: asArray(statement.Resource as unknown).map((resource) => describeValue(resource, s)),
        conditions: statement.Condition,
      });
    }
  }
  return grants;
}

/** Resource -> sorted actions, merging every statement (with or without conditions). */
export function actionsByResource(grants: Grant[]): Map<string, string[]> {
  const byResource = new Map<string, Set<string>>();
  for (const grant of grants) {
    for (const resource of grant.resources) {
      const actions = byResource.get(resource) ?? new Set<string>();
      for (const action of grant.actions) actions.add(action);
      byResource.set(resource, actions);
    }
  }
  return new Map([...byResource].map(([resource, actions]) => [resource, [...actions].sort()]));
}
