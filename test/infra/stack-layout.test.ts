/**
 * The stack layout (infra/stacks/layout.ts): every stack stays well under CloudFormation's 500
 * resources, every route exists exactly once, and the split moved resources without renaming
 * them, so an existing deployment upgrades by a stack refactor (docs/deploy.md, "Upgrading to the
 * split stacks") and nothing a user holds changes.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ROUTE, httpRoutes } from '../../functions/catalogue.js';
import { MAX_STACK_RESOURCES, stackOfFunction, UNAUTHENTICATED_ROUTES } from '../../infra/stacks/layout.js';
import { API_STACK_NAME, DATA_STACK_NAME, FUNCTION_STACK_NAMES } from '../../infra/stacks/stack-names.js';
import { logicalId, synthesize } from './synth.js';
import type { CfnTemplate, Synthesized } from './synth.js';

let s: Synthesized;
beforeAll(() => {
  s = synthesize({ bundle: false });
});
afterAll(() => s?.cleanup());

const before = JSON.parse(readFileSync(new URL('./fixtures/api-stack-before-split.json', import.meta.url), 'utf8')) as { resources: Record<string, string> };

/**
 * The one resource the split renames: the sweeper's EventBridge permission, whose id CDK derives
 * from its function's stack. It is a permission only, made in the new stack before the old one is
 * deleted, so no run of the sweeper is refused.
 */
const RENAMED = new Set(['SweeperScheduleAllowEventRuleSocialPublishingApiSweeperAA7473BEDB6CC12A']);

/**
 * Resources removed since the split, on purpose: the webhook router's dead-letter queue, its policy
 * and its alarm. The router's stream mappings retry a failing batch until it succeeds (issue 31,
 * item 2), so nothing was wired to the queue; a stream's on-failure destination would only ever
 * have received shard and sequence pointers to records the stream drops after 24 h, nothing to redrive.
 */
const REMOVED = new Set(['WebhookRouterDlqAFB456CB', 'WebhookRouterDlqPolicy925FB429', 'WebhookRouterDlqDepth63889391']);

/** The resources a user's data, URLs or messages in flight live in: each must stay exactly where it was. */
const STATEFUL_IN_API_STACK = [
  'ApiF70053CD', // the HTTP API: its id is in every execute-api URL
  'DefaultStageEE28A986',
  'PublishQueue2CCF7BE3',
  'PublishQueueDlq13A42A86',
  'DeletionQueueFCF7C2CD',
  'DeletionQueueDlq142FAF08',
  'WebhookQueueA9D318EA',
  'WebhookQueueDlq074F5595',
  'SchedulerDlqBE0A9ADA',
  'Schedules29FB02FD',
  'SchedulerRole59E73443', // every schedule in flight names this role
  'SettingsAppClientSettingsApp614CD6ED', // the settings sign-in's client (its id is in every session's tokens)
  'ApiAccessLogsE9DF007D',
  'ApiLogs3D05D88B',
  'SettingsLogs1E95E1B9',
  'AssistantLogs46C110D1',
  'WorkersLogsD382D3D3',
];

/** Its resources as `cdk deploy` makes them: the CLI adds a CDKMetadata resource that this synthesis (no CLI) leaves out. */
function resourceCount(template: CfnTemplate): number {
  const cliMetadata = Object.values(template.Resources).some((resource) => resource.Type === 'AWS::CDK::Metadata') ? 0 : 1;
  return Object.keys(template.Resources).length + cliMetadata;
}

function breakdown(template: CfnTemplate): string {
  const byType = new Map<string, number>();
  for (const resource of Object.values(template.Resources)) byType.set(resource.Type, (byType.get(resource.Type) ?? 0) + 1);
  return [...byType].sort((a, b) => b[1] - a[1]).map(([type, n]) => `${type} (${n})`).join(', ');
}

function stackOfResource(id: string): string[] {
  return [...s.stacks].filter(([, template]) => id in template.Resources).map(([name]) => name);
}

describe('stack layout', () => {
  it(`keeps every stack under ${MAX_STACK_RESOURCES} resources (CloudFormation refuses 500)`, () => {
    const counts = Object.fromEntries([...s.stacks].map(([name, template]) => [name, resourceCount(template)]));
    for (const [name, count] of Object.entries(counts)) {
      expect(
        count,
        `${name} has ${count} resources; CloudFormation refuses more than 500 and the next functions need room. Place the next face's functions in a stack of their own (infra/stacks/layout.ts, docs/deploy.md "Stack layout"). ${breakdown(s.stacks.get(name)!)}`,
      ).toBeLessThanOrEqual(MAX_STACK_RESOURCES);
    }
    expect(Object.keys(counts).sort()).toEqual([DATA_STACK_NAME, ...FUNCTION_STACK_NAMES].sort());
  });

  it('keeps every resource of the API stack as deployed before the split, once, under the same logical id and type', () => {
    for (const [id, type] of Object.entries(before.resources)) {
      if (RENAMED.has(id)) continue;
      if (REMOVED.has(id)) {
        expect(stackOfResource(id), id).toEqual([]);
        continue;
      }
      const stacks = stackOfResource(id);
      expect(stacks, id).toHaveLength(1);
      expect(s.stacks.get(stacks[0]!)!.Resources[id]!.Type, id).toBe(type);
    }
  });

  it('keeps the HTTP API, its stage, the queues, the Scheduler wiring, the sign-in client and the log groups in the API stack', () => {
    for (const id of STATEFUL_IN_API_STACK) {
      expect(before.resources[id], `${id} is not in the fixture`).toBeDefined();
      expect(stackOfResource(id), id).toEqual([API_STACK_NAME]);
    }
    expect(stackOfResource(logicalId(s.service.api.api))).toEqual([API_STACK_NAME]);
    expect(stackOfResource(logicalId(s.service.api.publishQueue))).toEqual([API_STACK_NAME]);
  });

  it('has every route of the catalogue exactly once across the stacks, in the stack of its function', () => {
    const routes = new Map<string, string[]>();
    for (const [stackName, template] of s.stacks) {
      for (const resource of Object.values(template.Resources)) {
        if (resource.Type !== 'AWS::ApiGatewayV2::Route') continue;
        const key = resource.Properties?.RouteKey as string;
        routes.set(key, [...(routes.get(key) ?? []), stackName]);
      }
    }
    const expected = [...httpRoutes().map((route) => `${route.method} ${route.path}`), '$default'];
    expect([...routes.keys()].sort()).toEqual(expected.sort());
    for (const route of httpRoutes()) expect(routes.get(`${route.method} ${route.path}`), route.name).toEqual([stackOfFunction(route.name)]);
    expect(routes.get('$default')).toEqual([stackOfFunction(DEFAULT_ROUTE.name)]);
  });

  it('keeps the routes the stage throttles by key in the stage\'s stack (route settings need their routes to exist)', () => {
    for (const name of UNAUTHENTICATED_ROUTES) expect(stackOfFunction(name), name).toBe(API_STACK_NAME);
    const stage = Object.values(s.stacks.get(API_STACK_NAME)!.Resources).find((resource) => resource.Type === 'AWS::ApiGatewayV2::Stage')!;
    const throttled = Object.keys(stage.Properties?.RouteSettings as Record<string, unknown>);
    const apiStackRoutes = Object.values(s.stacks.get(API_STACK_NAME)!.Resources)
      .filter((resource) => resource.Type === 'AWS::ApiGatewayV2::Route')
      .map((resource) => resource.Properties?.RouteKey);
    for (const key of throttled) expect(apiStackRoutes, key).toContain(key);
  });

  it('places each function in the stack layout.ts names, named after the service wherever it lives', () => {
    for (const [name, fn] of s.service.api.functions) {
      expect(stackOfResource(logicalId(fn)), name).toEqual([stackOfFunction(name)]);
      expect((s.apiJson.Resources[logicalId(fn)]!.Properties as { FunctionName: string }).FunctionName, name).toBe(`${API_STACK_NAME}-${name}`);
    }
  });

  it('makes the function stacks depend on the API stack and never the reverse (a cycle cannot deploy)', () => {
    const dependsOn = (stackName: string) => s.service.stacks.find((stack) => stack.stackName === stackName)!.dependencies.map((stack) => stack.stackName);
    expect(dependsOn(API_STACK_NAME)).toEqual([DATA_STACK_NAME]);
    for (const name of FUNCTION_STACK_NAMES.filter((candidate) => candidate !== API_STACK_NAME)) expect(dependsOn(name), name).toContain(API_STACK_NAME);
    const apiTemplate: CfnTemplate = s.stacks.get(API_STACK_NAME)!;
    expect(JSON.stringify(apiTemplate.Resources)).not.toMatch(/Fn::ImportValue":"SocialPublishing(ApiRoutes|Settings|Workers)/);
  });
});
