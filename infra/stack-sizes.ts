/**
 * `npm run synth` ends here: each synthesized stack's resource count beside CloudFormation's limit,
 * and a failure past layout.ts's ceiling, so the next feature meets the limit at synth, not in a
 * deploy (test/infra/stack-layout.test.ts holds the same ceiling).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_STACK_RESOURCES } from './stacks/layout.js';

const CLOUDFORMATION_LIMIT = 500;
const outdir = process.argv[2] ?? 'cdk.out';

let over = false;
for (const file of readdirSync(outdir).filter((name) => name.endsWith('.template.json') && !name.endsWith('.sam.template.json')).sort()) {
  const template = JSON.parse(readFileSync(join(outdir, file), 'utf8')) as { Resources?: Record<string, unknown> };
  const count = Object.keys(template.Resources ?? {}).length;
  const stack = file.slice(0, -'.template.json'.length);
  over ||= count > MAX_STACK_RESOURCES;
  process.stdout.write(`${stack.padEnd(28)} ${String(count).padStart(4)} resources (limit ${CLOUDFORMATION_LIMIT}, ceiling ${MAX_STACK_RESOURCES})${count > MAX_STACK_RESOURCES ? '  OVER' : ''}\n`);
}
if (over) {
  process.stderr.write(`A stack is over ${MAX_STACK_RESOURCES} resources: give the next face a stack of its own (infra/stacks/layout.ts).\n`);
  process.exit(1);
}
