/**
 * Phase `cold`, run first, before anything else loads this machine's cores. Cold start: every
 * function of functions/catalogue.ts bundled the way the CDK app bundles it
 * (infra/constructs/service-function.ts: esbuild, ESM, node22, minified, tree-shaken, AWS SDK
 * included but for the credential providers Lambda never loads, the `require` banner, an external
 * source map), then the time to import each bundle
 * in a fresh Node process, with NODE_OPTIONS=--enable-source-maps as the deployed functions run.
 * The median of several imports is reported.
 */
import { spawn } from 'node:child_process';
import { mkdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, stop, type Metafile } from 'esbuild';
import { ESM_REQUIRE_BANNER, UNREACHED_CREDENTIAL_PROVIDERS } from '../../infra/constructs/service-function.js';
import { API_ROUTES, DEFAULT_ROUTE, QUEUE_CONSUMERS, SWEEPER } from '../../functions/catalogue.js';
import { REPO_ROOT } from '../../local/lambda-runtime.js';
import { log } from '../harness.js';
import { budget, BUDGETS, ms, table, type Budget, type PhaseOutcome } from '../report.js';
import { median } from '../stats.js';

export interface BundleFigures {
  name: string;
  entry: string;
  /** Bytes of index.mjs (the source map is a separate file and is not loaded unless an error is printed). */
  bytes: number;
  /** Median of `importRuns` imports, milliseconds, with --enable-source-maps (as deployed). */
  importMs: number;
  importRunsMs: number[];
  /** Median without source-map support, for comparison. */
  importMsWithoutSourceMaps: number;
  /** The packages (or our own code) that make up most of the bundle, bytes in the output. */
  largestInputs: { input: string; bytes: number }[];
}

/** Imports timed per function (the median is reported). */
const IMPORT_RUNS = 5;

export async function coldPhase(): Promise<PhaseOutcome> {
  log('cold start: bundling every function as the CDK app does, then timing imports');
  const bundles = await measureColdStart(join(tmpdir(), `bench-bundles-${process.pid}`), IMPORT_RUNS);
  const budgets: Budget[] = [];
  for (const bundle of bundles) {
    budgets.push(budget(`bundle ${bundle.name}`, bundle.bytes / 1000, BUDGETS.bundleBytes / 1000, 'kB'));
    budgets.push(budget(`import ${bundle.name}`, bundle.importMs, BUDGETS.importMs, 'ms'));
  }
  const report =
    bundles.length === 0
      ? []
      : [
          `Cold start (esbuild bundle as deployed; import in a fresh Node process, median of ${IMPORT_RUNS})`,
          table([['function', 'kB', 'import ms', 'no maps ms'], ...bundles.map((bundle) => [bundle.name, (bundle.bytes / 1000).toFixed(1), ms(bundle.importMs), ms(bundle.importMsWithoutSourceMaps)])]),
          '',
        ];
  return { results: { coldStart: bundles }, budgets, report };
}

const FUNCTIONS = [...API_ROUTES, ...QUEUE_CONSUMERS, SWEEPER, DEFAULT_ROUTE].map(({ name, entry }) => ({ name, entry }));

/** The package an input file belongs to (`@aws-sdk/client-sqs`), or `(our code)`. */
function packageOf(input: string): string {
  const index = input.lastIndexOf('node_modules/');
  if (index < 0) return '(our code)';
  const parts = input.slice(index + 'node_modules/'.length).split('/');
  return parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1] ?? ''}` : (parts[0] ?? input);
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

async function measureColdStart(outDir: string, runs: number): Promise<BundleFigures[]> {
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  const figures: BundleFigures[] = [];
  for (const fn of FUNCTIONS) {
    const outfile = join(outDir, fn.name, 'index.mjs');
    const result = await build({
      entryPoints: [join(REPO_ROOT, fn.entry)],
      absWorkingDir: REPO_ROOT,
      outfile,
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node22',
      mainFields: ['module', 'main'],
      banner: { js: ESM_REQUIRE_BANNER },
      minify: true,
      treeShaking: true,
      sourcemap: 'external',
      sourcesContent: false,
      external: [...UNREACHED_CREDENTIAL_PROVIDERS],
      metafile: true,
      logLevel: 'error',
    });
    const bytes = (await stat(outfile)).size;
    // The first import warms the file cache; it is not counted.
    await timeImport(outfile, true);
    const importRunsMs: number[] = [];
    for (let run = 0; run < runs; run++) importRunsMs.push(await timeImport(outfile, true));
    const withoutMaps: number[] = [];
    for (let run = 0; run < Math.max(1, Math.floor(runs / 2)); run++) withoutMaps.push(await timeImport(outfile, false));
    const entry: BundleFigures = {
      name: fn.name,
      entry: fn.entry,
      bytes,
      importMs: median(importRunsMs),
      importRunsMs,
      importMsWithoutSourceMaps: median(withoutMaps),
      largestInputs: largestInputs(result.metafile),
    };
    figures.push(entry);
    log(`  ${fn.name}: ${(bytes / 1000).toFixed(1)} kB, import ${entry.importMs.toFixed(1)} ms`);
  }
  // esbuild keeps a service process for further builds; none follow.
  await stop();
  await rm(outDir, { recursive: true, force: true });
  return figures;
}
