/**
 * Phase `cold`, run first, before anything else loads this machine's cores. Cold start: every
 * function of functions/catalogue.ts (FUNCTIONS below) bundled with the very options the CDK app uses
 * (infra/constructs/bundling.ts FUNCTION_BUNDLING: esbuild, ESM, node22, minified, AWS SDK
 * included but for the credential providers Lambda never loads, the `require` banner, a linked
 * source map), then the time to import each bundle in a fresh Node process, with
 * NODE_OPTIONS=--enable-source-maps as the deployed functions run. The median of several imports
 * is reported.
 *
 * The budget is a ratio (issue 30): each function's import over the import of a REFERENCE bundle
 * holding only the AWS SDK clients that function bundles (and, for the assistant server, the MCP
 * SDK), each built at module scope as the functions build theirs, and an empty handler, bundled with the same options and imported the
 * same way, each run of one right after a run of the other, so both see the machine at the same
 * moment. What is left over the reference is what the function's own code and its other packages
 * add to a cold start; the SDK's share, which no code of ours can shrink, cancels out.
 *
 * The other choice is measured beside it: the AWS SDK left to the Lambda runtime (`@aws-sdk/*`
 * and `@smithy/*` external), imported from this repository's node_modules as the stand-in for the
 * runtime's copy. The budgets apply to the deployed bundle.
 */
import { spawn } from 'node:child_process';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build, stop, type Metafile } from 'esbuild';
import { esbuildOptions, FUNCTION_BUNDLING, type AwsSdkChoice } from '../../infra/constructs/bundling.js';
import { API_ROUTES, ASSISTANT_ROUTES, DEFAULT_ROUTE, METRICS_COLLECTOR, QUEUE_CONSUMERS, REFERENCE_ROUTES, SETTINGS_ROUTES, SWEEPER, WEBHOOK_ROUTER } from '../../functions/catalogue.js';
import { REPO_ROOT } from '../../local/lambda-runtime.js';
import { log } from '../harness.js';
import { bundleCeilingBytes } from '../bundle-ceilings.js';
import { budget, formerImportLimitMs, importRatioBudget, ms, ratioBudget, table, type Budget, type PhaseOutcome } from '../report.js';
import { median } from '../stats.js';

export interface BundleFigures {
  name: string;
  entry: string;
  /** Bytes of index.mjs (the source map is a separate file and is not loaded unless an error is printed). */
  bytes: number;
  /** Median of `importRuns` imports, milliseconds, with --enable-source-maps (as deployed). */
  importMs: number;
  importRunsMs: number[];
  /** The reference bundle: the same AWS SDK clients and an empty handler (the floor). */
  reference: { clients: string[]; bytes: number; importMs: number; importRunsMs: number[] };
  /** The median of each run's importMs ÷ the reference's run beside it: what the budget holds. */
  importRatio: number;
  /** Median without source-map support, for comparison. */
  importMsWithoutSourceMaps: number;
  /** The packages (or our own code) that make up most of the bundle, bytes in the output. */
  largestInputs: { input: string; bytes: number }[];
  /** Bytes of the AWS SDK (@aws-sdk, @smithy, @aws-crypto) in the bundle. */
  awsSdkBytes: number;
  /** The same function with the AWS SDK left to the Lambda runtime (not deployed this way; see bundling.ts). */
  runtimeSdk: { bytes: number; importMs: number };
}

/** Imports timed per function (the median is reported). */
/** Imports of each bundle and of its reference, in turn: thirteen pairs, whose median ratio one busy moment cannot move. */
const IMPORT_RUNS = 13;

export async function coldPhase(): Promise<PhaseOutcome> {
  log('cold start: bundling every function as the CDK app does, then timing imports');
  // Inside the repository (not the OS temp folder): the runtime-SDK alternative resolves node_modules from there.
  const bundles = await measureColdStart(join(REPO_ROOT, '.bench-data', `bundles-${process.pid}`), IMPORT_RUNS);
  const budgets: Budget[] = [];
  for (const bundle of bundles) {
    // Size is a runaway guard (the same ceilings test/infra/bundles.test.ts holds), not a budget.
    budgets.push(budget(`bundle ceiling (guard) ${bundle.name}`, bundle.bytes / 1000, bundleCeilingBytes(bundle.name) / 1000, 'kB'));
    budgets.push(ratioBudget(`import ${bundle.name} / its SDK clients alone`, bundle.importMs, bundle.reference.importMs, importRatioBudget(), 'ms', formerImportLimitMs(bundle.name), bundle.importRatio));
  }
  const report =
    bundles.length === 0
      ? []
      : [
          `Cold start (esbuild bundle as deployed; import in a fresh Node process, median of ${IMPORT_RUNS} pairs' ratios; floor: a bundle of the same AWS SDK clients and an empty handler)`,
          table([
            ['function', 'kB', 'ceiling kB', 'AWS SDK kB', 'import ms', 'floor ms', 'ratio', 'budget', 'no maps ms', 'verdict', '| SDK from runtime: kB', 'import ms'],
            ...bundles.map((bundle) => [
              bundle.name,
              (bundle.bytes / 1000).toFixed(1),
              (bundleCeilingBytes(bundle.name) / 1000).toFixed(0),
              (bundle.awsSdkBytes / 1000).toFixed(1),
              ms(bundle.importMs),
              ms(bundle.reference.importMs),
              `${bundle.importRatio.toFixed(2)}x`,
              `${importRatioBudget()}x`,
              ms(bundle.importMsWithoutSourceMaps),
              verdict(bundle),
              (bundle.runtimeSdk.bytes / 1000).toFixed(1),
              ms(bundle.runtimeSdk.importMs),
            ]),
          ]),
          `deployed: AWS SDK ${FUNCTION_BUNDLING.awsSdk}; "SDK from runtime" is the alternative (node_modules standing in for the runtime's SDK), not deployed`,
          '',
        ];
  return { results: { coldStart: bundles }, budgets, report };
}

/**
 * Every Lambda of functions/catalogue.ts, once per entry: the API, the queue consumers, the sweeper,
 * the default route, the settings pages and the assistant server (whose MCP entry serves three
 * routes, as one function: the CDK app deploys one function per entry too).
 */
export /** PASS when the import meets its budget and the bundle is within its guard, else what is off. */
function verdict(bundle: BundleFigures): string {
  const missed = [
    !(bundle.importRatio <= importRatioBudget()) ? 'MISS import' : '',
    bundle.bytes > bundleCeilingBytes(bundle.name) ? 'OVER ceiling' : '',
  ].filter(Boolean);
  return missed.length === 0 ? 'PASS' : missed.join('+');
}

export const FUNCTIONS: readonly { name: string; entry: string }[] = [...API_ROUTES, ...QUEUE_CONSUMERS, SWEEPER, METRICS_COLLECTOR, WEBHOOK_ROUTER, DEFAULT_ROUTE, ...SETTINGS_ROUTES, ...ASSISTANT_ROUTES, ...REFERENCE_ROUTES]
  .filter((fn, index, all) => all.findIndex((other) => other.entry === fn.entry) === index)
  .map(({ name, entry }) => ({ name, entry }));

/** The package an input file belongs to (`@aws-sdk/client-sqs`), or `(our code)`. */
function packageOf(input: string): string {
  const index = input.lastIndexOf('node_modules/');
  if (index < 0) return '(our code)';
  const parts = input.slice(index + 'node_modules/'.length).split('/');
  return parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1] ?? ''}` : (parts[0] ?? input);
}

const AWS_SDK_PACKAGES = /^@(aws-sdk|smithy|aws-crypto)\//;

function awsSdkBytes(metafile: Metafile): number {
  let bytes = 0;
  for (const output of Object.values(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) if (AWS_SDK_PACKAGES.test(packageOf(input))) bytes += bytesInOutput;
  }
  return bytes;
}

function largestInputs(metafile: Metafile): { input: string; bytes: number }[] {
  const byPackage = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const name = packageOf(input);
      byPackage.set(name, (byPackage.get(name) ?? 0) + bytesInOutput);
    }
  }
  return [...byPackage.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10)
    .map(([input, bytes]) => ({ input, bytes }));
}

/** Milliseconds `await import(file)` takes in a new Node process. */
function timeImport(file: string, sourceMaps: boolean): Promise<number> {
  const script = 'const t = performance.now(); await import(process.argv[1]); process.stdout.write(String(performance.now() - t));';
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, file], {
      // A clean environment (no tsx loader inherited), as in a new Lambda sandbox.
      env: { PATH: process.env.PATH ?? '', NODE_OPTIONS: sourceMaps ? '--enable-source-maps' : '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const ms = Number(out);
      if (code === 0 && Number.isFinite(ms)) resolve(ms);
      else reject(new Error(`Importing ${file} failed (exit ${code}): ${err.slice(0, 500)}`));
    });
  });
}

async function bundle(entry: string, outfile: string, awsSdk: AwsSdkChoice): Promise<{ bytes: number; metafile: Metafile }> {
  const result = await build({ ...esbuildOptions(entry, outfile, awsSdk), absWorkingDir: REPO_ROOT, metafile: true, logLevel: 'error' });
  return { bytes: (await stat(outfile)).size, metafile: result.metafile };
}

/** Median of `runs` imports after one that warms the file cache. */
async function importMedian(file: string, runs: number, sourceMaps: boolean): Promise<{ median: number; runs: number[] }> {
  await timeImport(file, sourceMaps);
  const times: number[] = [];
  for (let run = 0; run < runs; run++) times.push(await timeImport(file, sourceMaps));
  return { median: median(times), runs: times };
}

/** The function's and its reference's imports in turn (one of each per run), so both meet the machine at the same moment. */
async function importMediansInTurn(file: string, reference: string, runs: number): Promise<{ file: { median: number; runs: number[] }; reference: { median: number; runs: number[] }; pairedRatio: number }> {
  await timeImport(file, true);
  await timeImport(reference, true);
  const own: number[] = [];
  const floor: number[] = [];
  for (let run = 0; run < runs; run++) {
    // Each pair in the other order from the last (ABBA): whatever the first import of a pair leaves
    // the second (caches warm or busy) falls on the function and on its reference alike.
    if (run % 2 === 0) {
      own.push(await timeImport(file, true));
      floor.push(await timeImport(reference, true));
    } else {
      floor.push(await timeImport(reference, true));
      own.push(await timeImport(file, true));
    }
  }
  return {
    file: { median: median(own), runs: own },
    reference: { median: median(floor), runs: floor },
    pairedRatio: median(own.map((time, run) => time / (floor[run] as number))),
  };
}

/** Each client package's client class; `lib-dynamodb`'s document client wraps a DynamoDB client. */
const CLIENT_CLASSES: Readonly<Record<string, string>> = {
  '@aws-sdk/client-dynamodb': 'DynamoDBClient',
  '@aws-sdk/client-dynamodb-streams': 'DynamoDBStreamsClient',
  '@aws-sdk/client-sqs': 'SQSClient',
  '@aws-sdk/client-scheduler': 'SchedulerClient',
  '@aws-sdk/client-kms': 'KMSClient',
  '@aws-sdk/client-secrets-manager': 'SecretsManagerClient',
  '@aws-sdk/client-s3': 'S3Client',
  '@aws-sdk/client-ssm': 'SSMClient',
  '@aws-sdk/client-cloudwatch': 'CloudWatchClient',
};

/**
 * The MCP SDK is a part of the assistant server as the AWS SDK is of every function: the protocol's
 * server and transport, and zod, which its tool schemas are written in. Its reference holds them
 * too, built as lib/mcp builds them, so what the ratio shows is what our tools add.
 */
const MCP_SDK = '@modelcontextprotocol/sdk';

/** The AWS SDK clients (and the DynamoDB document client) a bundle holds, and the MCP SDK if it does, from its metafile. */
function sdkClientsOf(metafile: Metafile): string[] {
  const clients = new Set<string>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const name = packageOf(input);
      if (bytesInOutput > 0 && (name.startsWith('@aws-sdk/client-') || name === '@aws-sdk/lib-dynamodb' || name === MCP_SDK)) clients.add(name);
    }
  }
  return [...clients].sort();
}

/**
 * The reference bundle's source: each client constructed at module scope (as the functions build
 * theirs, so its construction is in the import as theirs is) and an empty handler.
 */
function referenceSource(clients: readonly string[]): string {
  const lines: string[] = [];
  const built: string[] = [];
  for (const [index, client] of clients.entries()) {
    if (client === '@aws-sdk/lib-dynamodb') continue;
    if (client === MCP_SDK) {
      lines.push(
        `import { McpServer } from '${MCP_SDK}/server/mcp.js';`,
        `import { WebStandardStreamableHTTPServerTransport } from '${MCP_SDK}/server/webStandardStreamableHttp.js';`,
        `import * as z from 'zod/v4';`,
      );
      // With a validator of its own, as lib/mcp/mcp-endpoint.ts gives it: the bundles leave ajv out.
      built.push(`new McpServer({ name: 'reference', version: '0' }, { jsonSchemaValidator: { getValidator: () => () => ({ valid: false, data: undefined, errorMessage: 'none' }) } })`, 'new WebStandardStreamableHTTPServerTransport({})', 'z.object({ text: z.string() })');
      continue;
    }
    const className = CLIENT_CLASSES[client];
    if (!className) throw new Error(`no client class known for ${client}: add it to CLIENT_CLASSES in bench/phases/cold.ts`);
    lines.push(`import { ${className} as C${index} } from '${client}';`);
    built.push(`new C${index}({})`);
  }
  if (clients.includes('@aws-sdk/lib-dynamodb')) {
    lines.push(`import { DynamoDBClient as DocumentBase } from '@aws-sdk/client-dynamodb';`, `import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';`);
    built.push('DynamoDBDocumentClient.from(new DocumentBase({}))');
  }
  lines.push(`export const clients = [${built.join(', ')}];`, 'export const handler = async () => ({});', '');
  return lines.join('\n');
}

async function measureColdStart(outDir: string, runs: number): Promise<BundleFigures[]> {
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  const figures: BundleFigures[] = [];
  /** One reference bundle per set of clients (most functions share a few sets). */
  const references = new Map<string, { file: string; bytes: number }>();
  const referenceFor = async (clients: string[]): Promise<{ file: string; bytes: number }> => {
    const key = clients.join('+') || 'none';
    const known = references.get(key);
    if (known) return known;
    const folder = join(outDir, `reference-${references.size}`);
    await mkdir(folder, { recursive: true });
    const entry = join(folder, 'entry.ts');
    await writeFile(entry, referenceSource(clients));
    const outfile = join(folder, 'out', 'index.mjs');
    const built = await bundle(entry, outfile, FUNCTION_BUNDLING.awsSdk);
    const reference = { file: outfile, bytes: built.bytes };
    references.set(key, reference);
    return reference;
  };
  try {
    // BENCH_FUNCTIONS=GetPost,Mcp: only those (for working on one function's figure).
    const only = (process.env.BENCH_FUNCTIONS ?? '').split(',').filter(Boolean);
    for (const fn of FUNCTIONS.filter((candidate) => only.length === 0 || only.includes(candidate.name))) {
      const outfile = join(outDir, fn.name, 'index.mjs');
      const deployed = await bundle(fn.entry, outfile, FUNCTION_BUNDLING.awsSdk);
      const clients = sdkClientsOf(deployed.metafile);
      const reference = await referenceFor(clients);
      const inTurn = await importMediansInTurn(outfile, reference.file, runs);
      const withoutMaps = await importMedian(outfile, Math.max(1, Math.floor(runs / 2)), false);
      // The alternative sits inside the repository, so `import '@aws-sdk/...'` finds node_modules.
      const otherSdk: AwsSdkChoice = FUNCTION_BUNDLING.awsSdk === 'bundled' ? 'runtime' : 'bundled';
      const otherFile = join(outDir, `${fn.name}-sdk-${otherSdk}`, 'index.mjs');
      const other = await bundle(fn.entry, otherFile, otherSdk);
      const otherImport = await importMedian(otherFile, Math.max(1, Math.floor(runs / 2)), true);
      const entry: BundleFigures = {
        name: fn.name,
        entry: fn.entry,
        bytes: deployed.bytes,
        importMs: inTurn.file.median,
        importRunsMs: inTurn.file.runs,
        reference: { clients, bytes: reference.bytes, importMs: inTurn.reference.median, importRunsMs: inTurn.reference.runs },
        importRatio: inTurn.pairedRatio,
        importMsWithoutSourceMaps: withoutMaps.median,
        largestInputs: largestInputs(deployed.metafile),
        awsSdkBytes: awsSdkBytes(deployed.metafile),
        runtimeSdk: { bytes: other.bytes, importMs: otherImport.median },
      };
      figures.push(entry);
      log(`  ${fn.name}: ${(entry.bytes / 1000).toFixed(1)} kB, import ${entry.importMs.toFixed(1)} ms, its SDK clients alone ${entry.reference.importMs.toFixed(1)} ms (${entry.importRatio.toFixed(2)}x); SDK from the runtime: ${(other.bytes / 1000).toFixed(1)} kB, import ${otherImport.median.toFixed(1)} ms`);
    }
  } finally {
    // esbuild keeps a service process for further builds; none follow.
    await stop();
    await rm(outDir, { recursive: true, force: true });
  }
  return figures;
}
