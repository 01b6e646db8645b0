/**
 * `npm run sam-env`: points functions run by `sam local` at the running local stack (`npm start`).
 * `sam build` and `sam local` read one template; the functions are in the four stacks of
 * infra/stacks/layout.ts, so this merges their synthesized templates (`npx cdk synth`: logical ids
 * are distinct across them) into one, where every
 * table name, queue URL and key comes from the data stack by Fn::ImportValue and so resolves empty,
 * and where nothing says where DynamoDB Local, fauxqs and the sandboxes answer. This writes:
 *
 * - cdk.out/sam-env.json, the `--env-vars` file: for each function's logical id, the environment
 *   local/function-environment.ts derives from its template variables and DATA_DIR/stack.json
 *   (the one test/infra/function-environment.test.ts runs every function with);
 * - cdk.out/SocialPublishingApi.sam.template.json, the merged template with each of those variables
 *   declared on its function: SAM overrides only variables the template declares, and drops the rest.
 *
 * Options: --data-dir (default DATA_DIR, else .data), --template (once per stack; default: each
 * function stack's in cdk.out), --out, --sam-template, and
 * --host NAME to put NAME where the values say 127.0.0.1 or localhost (host.docker.internal with
 * Docker Desktop; on Linux keep them and run sam with --docker-network host). docs/deploy.md, "Running functions with `sam local`".
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { API_STACK_NAME, FUNCTION_STACK_NAMES } from '../infra/stacks/stack-names.js';
import { localFunctionEnvironment } from './function-environment.js';

interface LambdaResource {
  Type: string;
  Properties?: { Environment?: { Variables?: Record<string, unknown> } } & Record<string, unknown>;
}

export interface SamTemplate {
  Resources: Record<string, LambdaResource>;
}

export interface SamFiles {
  /** Logical id -> variable -> value: the `--env-vars` file. */
  envVars: Record<string, Record<string, string>>;
  /** The template with every variable of envVars declared on its function. */
  template: SamTemplate;
}

export class SamEnvError extends Error {
  readonly code = 'sam_env_unusable';
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'SamEnvError';
  }
}

/** A value with its 127.0.0.1 / localhost URL host replaced (a container's localhost is itself). */
function withHost(value: string, host: string | undefined): string {
  if (host === undefined || !/^https?:\/\//.test(value)) return value;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return value;
  }
  if (url.hostname !== '127.0.0.1' && url.hostname !== 'localhost') return value;
  url.hostname = host;
  // URL adds a trailing slash to a bare origin; the stack's values have none.
  return value.endsWith('/') || url.pathname !== '/' ? url.toString() : url.toString().replace(/\/$/, '');
}

export function samFiles(template: SamTemplate, stackEnv: Readonly<Record<string, string>>, options: { host?: string } = {}): SamFiles {
  const envVars: Record<string, Record<string, string>> = {};
  const resources: Record<string, LambdaResource> = {};
  for (const [logicalId, resource] of Object.entries(template.Resources)) {
    if (resource.Type !== 'AWS::Lambda::Function') {
      resources[logicalId] = resource;
      continue;
    }
    const variables = resource.Properties?.Environment?.Variables ?? {};
    const local = localFunctionEnvironment(variables, stackEnv);
    envVars[logicalId] = Object.fromEntries(Object.entries(local).map(([name, value]) => [name, withHost(value, options.host)]));
    const declared: Record<string, unknown> = { ...variables };
    for (const name of Object.keys(local)) if (!(name in declared)) declared[name] = '';
    resources[logicalId] = { ...resource, Properties: { ...resource.Properties, Environment: { Variables: declared } } };
  }
  if (Object.keys(envVars).length === 0) throw new SamEnvError('The templates have no AWS::Lambda::Function: are they the function stacks’?');
  return { envVars, template: { ...template, Resources: resources } };
}

/** DATA_DIR/stack.json's `env`: every variable the local stack's handlers run with. */
export function stackEnvironment(raw: unknown, path: string): Record<string, string> {
  const env = typeof raw === 'object' && raw !== null ? (raw as { env?: unknown }).env : undefined;
  if (typeof env !== 'object' || env === null) throw new SamEnvError(`${path} has no env: is it from an older version? Restart \`npm start\``);
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

async function readJson(path: string, missing: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new SamEnvError(`${path} is missing: ${missing}`, { cause: error });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new SamEnvError(`${path} is not JSON`, { cause: error });
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'data-dir': { type: 'string', default: process.env.DATA_DIR ?? '.data' },
      template: { type: 'string', multiple: true, default: FUNCTION_STACK_NAMES.map((name) => join('cdk.out', `${name}.template.json`)) },
      out: { type: 'string', default: join('cdk.out', 'sam-env.json') },
      'sam-template': { type: 'string', default: join('cdk.out', `${API_STACK_NAME}.sam.template.json`) },
      host: { type: 'string' },
    },
  });
  const stackFile = join(values['data-dir'], 'stack.json');
  const stackEnv = stackEnvironment(await readJson(stackFile, 'start the local stack first (`npm start`), or pass --data-dir'), stackFile);
  const template: SamTemplate = { Resources: {} };
  for (const path of values.template) {
    const stackTemplate = (await readJson(path, 'synthesize first (`npx cdk synth`)')) as SamTemplate;
    if (typeof stackTemplate !== 'object' || stackTemplate === null || typeof stackTemplate.Resources !== 'object') throw new SamEnvError(`${path} is not a CloudFormation template`);
    for (const [logicalId, resource] of Object.entries(stackTemplate.Resources)) {
      if (logicalId in template.Resources) throw new SamEnvError(`${logicalId} is in two of the templates: pass each stack's template once`);
      template.Resources[logicalId] = resource;
    }
  }
  const files = samFiles(template, stackEnv, values.host === undefined ? {} : { host: values.host });
  // The local stack's keys are in there (cursor signing key, sandbox client secrets): owner only.
  await writeFile(values.out, `${JSON.stringify(files.envVars, null, 2)}\n`, { mode: 0o600 });
  await writeFile(values['sam-template'], `${JSON.stringify(files.template, null, 1)}\n`);
  process.stdout.write(
    `${JSON.stringify({ functions: Object.keys(files.envVars).length, envVars: values.out, template: values['sam-template'], stack: stackFile })}\n`,
  );
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
