/**
 * `npm run sam-env` as an operator runs it (issue 20, item 8): a separate process that reads the
 * synthesized API template and a running local stack's DATA_DIR/stack.json and writes the
 * `--env-vars` file for `sam local`, plus the template with those variables declared (SAM drops
 * any variable its template does not declare). test/infra/function-environment.test.ts runs every
 * function on exactly this environment; this checks the files name it for every function.
 * Docker (and so `sam local` itself) is not on the machine these tests run on.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '../../lib/config.js';
import { LOCAL_RUNTIME, LOCAL_STAND_INS } from '../../local/function-environment.js';
import { startTestStack, type TestStack } from '../support/stack.js';
import { logicalId, synthesize, type Synthesized } from '../infra/synth.js';
import { FUNCTION_STACK_NAMES } from '../../infra/stacks/stack-names.js';

const repoRoot = resolve(import.meta.dirname, '../..');
const tsx = join(repoRoot, 'node_modules', '.bin', 'tsx');
const cli = join(repoRoot, 'local', 'sam-env.ts');

let stack: TestStack;
let synth: Synthesized;
let dir: string;

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

function samEnv(...args: string[]): Promise<CliResult> {
  return new Promise((done) => {
    execFile(tsx, [cli, ...args], { cwd: repoRoot, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' }, timeout: 60_000 }, (error, stdout, stderr) => {
      done({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr });
    });
  });
}

type Variables = Record<string, Record<string, string>>;
interface Template {
  Resources: Record<string, { Type: string; Properties?: { Environment?: { Variables?: Record<string, unknown> } } }>;
}

beforeAll(async () => {
  // As `npm start` runs it: with the sandbox platforms.
  stack = await startTestStack({ sandbox: true });
  synth = synthesize({ bundle: false });
  dir = await mkdtemp(join(tmpdir(), 'sam-env-'));
  // What `npm start` writes, and what `npx cdk synth` writes.
  await writeFile(join(dir, 'stack.json'), JSON.stringify(stack.info));
  // One template per stack that holds functions (infra/stacks/layout.ts), as `npx cdk synth` writes them.
  for (const name of FUNCTION_STACK_NAMES) await writeFile(join(dir, `${name}.template.json`), JSON.stringify(synth.stacks.get(name)));
});

afterAll(async () => {
  synth?.cleanup();
  await stack?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function templateArgs(): string[] {
  return FUNCTION_STACK_NAMES.flatMap((name) => ['--template', join(dir, `${name}.template.json`)]);
}

function paths(name: string) {
  return ['--data-dir', dir, ...templateArgs(), '--out', join(dir, `${name}.env.json`), '--sam-template', join(dir, `${name}.sam.json`)];
}

describe('npm run sam-env', () => {
  let envVars: Variables;
  let samTemplate: Template;

  beforeAll(async () => {
    const result = await samEnv(...paths('plain'));
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    envVars = JSON.parse(await readFile(join(dir, 'plain.env.json'), 'utf8')) as Variables;
    samTemplate = JSON.parse(await readFile(join(dir, 'plain.sam.json'), 'utf8')) as Template;
    expect(JSON.parse(result.stdout)).toMatchObject({ functions: synth.service.api.functions.size });
  });

  it('has one entry per function, keyed by its logical id in the synthesized template', () => {
    const ids = [...synth.service.api.functions.values()].map((fn) => logicalId(fn)).sort();
    expect(Object.keys(envVars).sort()).toEqual(ids);
  });

  it('names every variable each function reads, bound to the local stack: none empty, none a cross-stack import', () => {
    for (const [name, fn] of synth.service.api.functions) {
      const id = logicalId(fn);
      const template = (synth.apiJson.Resources[id]!.Properties as { Environment: { Variables: Record<string, unknown> } }).Environment.Variables;
      const local = envVars[id]!;
      for (const variable of Object.keys(template)) {
        // An AWS-only variable (a secret or key ARN) is replaced by the local variables that stand in for it.
        for (const needed of LOCAL_STAND_INS[variable] ?? [variable]) expect(local[needed], `${name} ${needed}`).toBeTruthy();
      }
      for (const variable of LOCAL_RUNTIME) expect(local[variable], `${name} ${variable}`).toBe(stack.env[variable]);
      for (const [variable, value] of Object.entries(local)) {
        expect(value, `${name} ${variable}`).not.toBe('');
        expect(value, `${name} ${variable}`).not.toContain('ImportValue');
      }
    }
    // The values are the running stack's: its tables, its queue, its endpoints.
    const createPosts = envVars[logicalId(synth.service.api.functions.get('CreatePosts')!)]!;
    expect(createPosts[ENV.postsTable]).toBe(stack.info.tables.posts);
    expect(createPosts[ENV.publishQueueUrl]).toBe(stack.info.queues.publish.url);
    expect(createPosts.AWS_ENDPOINT_URL_DYNAMODB).toBe(stack.info.dynamodbEndpoint);
    expect(createPosts).not.toHaveProperty(ENV.cursorSigningKeySecretId);
  });

  it('writes a template that declares each of those variables on its function (SAM overrides only declared ones)', () => {
    for (const [id, variables] of Object.entries(envVars)) {
      const declared = samTemplate.Resources[id]?.Properties?.Environment?.Variables ?? {};
      for (const variable of Object.keys(variables)) expect(declared, `${id} ${variable}`).toHaveProperty(variable);
    }
    // Everything else of the template is as synthesized.
    expect(Object.keys(samTemplate.Resources).sort()).toEqual(Object.keys(synth.apiJson.Resources).sort());
  });

  it('keeps the file to its owner: it holds the local stack’s keys', async () => {
    expect((await stat(join(dir, 'plain.env.json'))).mode & 0o077).toBe(0);
  });
});

describe('npm run sam-env --host', () => {
  it('points URLs at the Docker host instead of the container’s own 127.0.0.1, and leaves the rest', async () => {
    const result = await samEnv(...paths('docker'), '--host', 'host.docker.internal');
    expect(result.code, result.stderr).toBe(0);
    const envVars = JSON.parse(await readFile(join(dir, 'docker.env.json'), 'utf8')) as Variables;
    const worker = envVars[logicalId(synth.service.api.functions.get('PublishWorker')!)]!;
    const dynamodb = new URL(stack.info.dynamodbEndpoint);
    expect(worker.AWS_ENDPOINT_URL_DYNAMODB).toBe(`${dynamodb.protocol}//host.docker.internal:${dynamodb.port}`);
    expect(worker[ENV.publishQueueUrl]).toBe(stack.info.queues.publish.url.replace(/\/\/(127\.0\.0\.1|localhost)(?=[:/])/, '//host.docker.internal'));
    expect(worker[ENV.postsTable]).toBe(stack.info.tables.posts);
    for (const values of Object.values(envVars)) {
      for (const value of Object.values(values)) expect(value).not.toMatch(/\/\/(127\.0\.0\.1|localhost)[:/]/);
    }
  });
});

describe('npm run sam-env refuses', () => {
  it('without a running local stack, saying what to do', async () => {
    const result = await samEnv('--data-dir', join(dir, 'nowhere'), ...templateArgs(), '--out', join(dir, 'x.json'), '--sam-template', join(dir, 'y.json'));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('npm start');
  });

  it('a stack that lacks a variable a function reads, naming it', async () => {
    const partial = join(dir, 'partial');
    await mkdir(partial);
    const env: Record<string, string> = { ...stack.env };
    delete env[ENV.postsTable];
    await writeFile(join(partial, 'stack.json'), JSON.stringify({ ...stack.info, env }));
    const result = await samEnv('--data-dir', partial, ...templateArgs(), '--out', join(dir, 'x.json'), '--sam-template', join(dir, 'y.json'));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`The local stack sets no ${ENV.postsTable}`);
  });
});
