/**
 * `npx tsx infra/split-refactor.ts [cdk.out]`: the resource mappings that move a deployment made
 * before the stack split (everything in SocialPublishingApi) into layout.ts's stacks with
 * CloudFormation's stack refactoring, for `aws cloudformation create-stack-refactor`
 * (docs/deploy.md, "Upgrading to the split stacks"). Each moved resource keeps its logical id (the
 * layout test holds that), so a mapping is the same id in another stack; CloudFormation then moves
 * the function, role, route, integration or permission without replacing it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { API_STACK_NAME, FUNCTION_STACK_NAMES } from './stacks/stack-names.js';

interface ResourceMapping {
  Source: { StackName: string; LogicalResourceId: string };
  Destination: { StackName: string; LogicalResourceId: string };
}

const outdir = process.argv[2] ?? 'cdk.out';
const before = JSON.parse(readFileSync(new URL('../test/infra/fixtures/api-stack-before-split.json', import.meta.url), 'utf8')) as { resources: Record<string, string> };
const mappings: ResourceMapping[] = [];
for (const stackName of FUNCTION_STACK_NAMES.filter((name) => name !== API_STACK_NAME)) {
  const template = JSON.parse(readFileSync(join(outdir, `${stackName}.template.json`), 'utf8')) as { Resources: Record<string, unknown> };
  for (const logicalId of Object.keys(template.Resources)) {
    if (!(logicalId in before.resources)) continue;
    mappings.push({ Source: { StackName: API_STACK_NAME, LogicalResourceId: logicalId }, Destination: { StackName: stackName, LogicalResourceId: logicalId } });
  }
}
const file = join(outdir, 'split-refactor-mappings.json');
writeFileSync(file, `${JSON.stringify(mappings, null, 1)}\n`);
process.stdout.write(`${mappings.length} resources move out of ${API_STACK_NAME}: ${file}\n`);
