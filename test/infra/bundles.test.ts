/**
 * The full synthesis, with esbuild bundling every function as `npx cdk synth` does: the bundles
 * are the very modules the local stack runs, and cdk-nag's AWS Solutions checks find nothing
 * that is not acknowledged with a reason.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { API_ROUTES, ASSISTANT_ROUTES, DEFAULT_ROUTE, METRICS_COLLECTOR, QUEUE_CONSUMERS, REFERENCE_ROUTES, SETTINGS_ROUTES, SWEEPER, WEBHOOK_ROUTER } from '../../functions/catalogue.js';
import { API_REFERENCE_DIR, API_REFERENCE_FILES } from '../../web/api-reference/build.js';
import { build } from 'esbuild';
import { FUNCTIONS as BENCH_FUNCTIONS } from '../../bench/phases/cold.js';
import { BUNDLE_CEILINGS as OVER_BUDGET, DEFAULT_BUNDLE_CEILING_BYTES, bundleCeilingBytes } from '../../bench/bundle-ceilings.js';
import { ESM_REQUIRE_BANNER, EVENT_STREAMS, esbuildOptions, esbuildOptionsForEach, externalModules } from '../../infra/constructs/bundling.js';
import { REPO_ROOT } from '../../infra/constructs/service-function.js';
import { entryPath, loadHandler } from '../../local/lambda-runtime.js';
import { logicalId, synthesize } from './synth.js';
import type { Synthesized } from './synth.js';

let s: Synthesized;
beforeAll(() => {
  s = synthesize({ bundle: true });
}, 600_000);
afterAll(() => s?.cleanup());

// The assistant server's routes share entries (the MCP entry serves three routes): one function per entry.
const ASSISTANT_ENTRIES = ASSISTANT_ROUTES.filter((route, index) => ASSISTANT_ROUTES.findIndex((other) => other.entry === route.entry) === index);
const ENTRIES = [...API_ROUTES, ...QUEUE_CONSUMERS, SWEEPER, METRICS_COLLECTOR, WEBHOOK_ROUTER, DEFAULT_ROUTE, ...SETTINGS_ROUTES, ...ASSISTANT_ENTRIES, REFERENCE_ROUTES[0]!].map(({ name, entry }) => ({ name, entry }));

function bundleDirectory(name: string): string {
  const fn = s.service.api.functions.get(name)!;
  const code = s.apiJson.Resources[logicalId(fn)]!.Properties!.Code as { S3Key: string };
  return path.join(s.assembly.directory, `asset.${code.S3Key.replace(/\.zip$/, '')}`);
}


/**
 * The modules left out of a bundle that its code imports statically (`import ... from "m"`,
 * `import "m"`, `require("m")`): each would stop the bundle from loading. A dynamic `import("m")`
 * is allowed, since it runs only on the path that needs it.
 */
function staticallyImportedExternals(code: string, externals: readonly string[]): string[] {
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  return externals.filter((name) => new RegExp(`(?:\\bfrom\\s*|\\bimport\\s*|\\brequire\\s*\\(\\s*)["']${escape(name)}(?:/[^"']*)?["']`).test(code));
}

const run = promisify(execFile);

let loaded: Promise<Record<string, string>> | undefined;
/** Each function's `typeof handler` as its bundle exports it, or the error its import threw, imported by one clean Node process. */
function loadedHandlerTypes(): Promise<Record<string, string>> {
  loaded ??= (async () => {
    const files = Object.fromEntries(ENTRIES.map(({ name }) => [name, path.join(bundleDirectory(name), 'index.mjs')]));
    const script = `
      const files = JSON.parse(process.argv[1]);
      const types = {};
      for (const [name, file] of Object.entries(files)) {
        try { types[name] = typeof (await import(file)).handler; } catch (error) { types[name] = 'failed to load: ' + (error?.message ?? error); }
      }
      process.stdout.write(JSON.stringify(types));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(files)], { env: { PATH: process.env.PATH ?? '' }, maxBuffer: 16 * 1024 * 1024 });
    return JSON.parse(stdout) as Record<string, string>;
  })();
  return loaded;
}

/**
 * The functions whose bundles are rebuilt through esbuildOptions and compared byte for byte: one
 * of each catalogue group (an API route, a queue consumer, the sweeper, the metrics collector, the
 * router, the default route, a settings route, the assistant server, the reference). Every
 * function is built by the same FUNCTION_BUNDLING and differs only in its entry, so one per way
 * the catalogue declares a function covers the options; rebuilding all of them cost over a minute a run.
 */
const REBUILT = new Set([API_ROUTES[0]!, QUEUE_CONSUMERS[0]!, SWEEPER, METRICS_COLLECTOR, WEBHOOK_ROUTER, DEFAULT_ROUTE, SETTINGS_ROUTES[0]!, ASSISTANT_ROUTES[0]!, REFERENCE_ROUTES[0]!].map((route) => route.name));

let rebuilding: Promise<Record<string, string>> | undefined;
/** The REBUILT functions' bundles, in one esbuild run (esbuildOptionsForEach), kept in memory. */
function rebuilt(): Promise<Record<string, string>> {
  rebuilding ??= (async () => {
    const entries = ENTRIES.filter(({ name }) => REBUILT.has(name));
    const out = await build({ ...esbuildOptionsForEach(entries, REPO_ROOT), absWorkingDir: REPO_ROOT, write: false, logLevel: 'error' });
    return Object.fromEntries(entries.map(({ name }) => [name, out.outputFiles.find((file) => file.path === path.join(REPO_ROOT, name, 'index.mjs'))?.text ?? `no ${name}/index.mjs`]));
  })();
  return rebuilding;
}

describe('bundles', () => {
  it('deploy every declared entry as exactly one function', () => {
    const deployed = [...s.service.api.functions.values()].map((fn) => fn.entryModule).sort();
    expect(deployed).toEqual(ENTRIES.map((e) => e.entry).sort());
  });

  it.each(ENTRIES)('$name: bundles the module whose handler the local stack calls', async ({ name, entry }) => {
    const fn = s.service.api.functions.get(name)!;
    expect(fn.entryModule).toBe(entry);
    expect(fn.entryPath).toBe(entryPath(entry));
    // The local stack's loader: the same file, and its `handler` export is a function.
    expect(typeof (await loadHandler(entry))).toBe('function');
  });

  it.each(ENTRIES)('$name: one minified ESM file exporting handler, with the require banner and a source map', ({ name }) => {
    const dir = bundleDirectory(name);
    const code = readFileSync(path.join(dir, 'index.mjs'), 'utf8');
    expect(code.startsWith(ESM_REQUIRE_BANNER)).toBe(true);
    expect(code).toMatch(/export\s*\{[^}]*\bas handler\s*\}|export\s*\{[^}]*\bhandler\s*\}/);
    expect(existsSync(path.join(dir, 'index.mjs.map'))).toBe(true);
    // Minified: the only line breaks left are inside string literals, so lines are very long
    // (a bundle of a couple of kB, like the static-asset function's, is a few lines at most).
    expect(code.split('\n').length).toBeLessThanOrEqual(Math.max(5, code.length / 2_000));
  });

  it.each(ENTRIES)('$name: loads on its own, with no node_modules beside it (as on Lambda)', async ({ name }) => {
    // The CDK assets sit in the OS temporary folder: a module left out of the bundle and imported
    // statically would fail here. A clean environment, like the bench's cold phase; one process
    // imports every bundle (each is its own module file), so a run pays one Node start, not one per function.
    expect((await loadedHandlerTypes())[name]).toBe('function');
  });

  it.each(ENTRIES)('$name: reaches what it leaves out (infra/constructs/bundling.ts) only through import()', ({ name }) => {
    const code = readFileSync(path.join(bundleDirectory(name), 'index.mjs'), 'utf8');
    expect(staticallyImportedExternals(code, externalModules())).toEqual([]);
  });

  it("the check above finds a static import: the S3 client's (which no function carries) would not load with the event-stream serde left out", async () => {
    // The S3 client imports the serde at start; the media functions sign plain requests instead
    // (lib/store/s3-signed-requests.ts), and this is what keeps it so: a function that bundled the
    // client again would fail the check above and the load test.
    const { entryPoints: _entry, ...options } = esbuildOptions('functions/settings/media.ts', path.join(REPO_ROOT, 'index.mjs'));
    const out = await build({
      ...options,
      stdin: { contents: "export { S3Client } from '@aws-sdk/client-s3';", resolveDir: REPO_ROOT, loader: 'ts', sourcefile: 's3-probe.ts' },
      absWorkingDir: REPO_ROOT,
      write: false,
      logLevel: 'error',
    });
    const code = out.outputFiles.find((file) => file.path.endsWith('index.mjs'))?.text ?? '';
    expect(staticallyImportedExternals(code, [EVENT_STREAMS])).toEqual([EVENT_STREAMS]);
    // And the dynamic import the functions keep is not mistaken for one.
    expect(staticallyImportedExternals('await import("@smithy/core/event-streams")', [EVENT_STREAMS])).toEqual([]);
  });

  it('Mcp: the SDK as bundled (ajv, zod 3 and zod-to-json-schema left out) lists a tool, answers a call and refuses input its schema rejects', async () => {
    // The MCP server exactly as lib/mcp/mcp-endpoint.ts builds it, bundled with the functions'
    // options, run where no node_modules can stand in for what the bundle left out.
    const probe = `
      import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
      import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
      import * as z from 'zod/v4';
      import { MCP_SERVER_OPTIONS, SERVER_INFO } from './lib/mcp/mcp-endpoint.js';
      async function call(message: unknown): Promise<unknown> {
        const server = new McpServer(SERVER_INFO, MCP_SERVER_OPTIONS);
        server.registerTool('echo', { description: 'echo', inputSchema: { text: z.string().max(5) } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
        const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
        await server.connect(transport);
        const response = await transport.handleRequest(new Request('http://localhost/mcp', {
          method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(message),
        }));
        await server.close();
        return response.json();
      }
      const params = (text: string) => ({ name: 'echo', arguments: { text } });
      process.stdout.write(JSON.stringify([
        await call({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: params('hi') }),
        await call({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: params('far too long') }),
        await call({ jsonrpc: '2.0', id: 3, method: 'tools/list' }),
      ]));
    `;
    const dir = mkdtempSync(path.join(tmpdir(), 'mcp-bundle-'));
    try {
      const file = path.join(dir, 'index.mjs');
      const { entryPoints: _entry, ...options } = esbuildOptions(ASSISTANT_ROUTES[0]!.entry, file);
      const built = await build({
        ...options,
        stdin: { contents: probe, resolveDir: REPO_ROOT, loader: 'ts', sourcefile: 'mcp-probe.ts' },
        absWorkingDir: REPO_ROOT,
        metafile: true,
        logLevel: 'error',
      });
      expect(Object.keys(built.metafile.inputs).filter((input) => /node_modules\/(ajv(-formats)?|zod\/v3|zod-to-json-schema|@cfworker)\//.test(input))).toEqual([]);
      const { stdout } = await run(process.execPath, [file], { env: { PATH: process.env.PATH ?? '' } });
      const [ok, refused, listed] = JSON.parse(stdout) as { result: { content: { text: string }[]; isError?: boolean; tools?: { inputSchema: unknown }[] } }[];
      // The tool's JSON Schema comes from Zod 4 itself, with zod-to-json-schema left out.
      expect(listed!.result.tools![0]!.inputSchema).toMatchObject({ type: 'object', properties: { text: { type: 'string', maxLength: 5 } }, required: ['text'] });
      expect(ok!.result).toEqual({ content: [{ type: 'text', text: 'hi' }] });
      expect(refused!.result.isError).toBe(true);
      expect(refused!.result.content[0]!.text).toMatch(/validation/i);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the bench's cold phase measures every deployed function", () => {
    expect(BENCH_FUNCTIONS.map((fn) => fn.entry).sort()).toEqual(ENTRIES.map((e) => e.entry).sort());
  });

  it('SettingsStatic: carries web/static beside its bundle, where its handler looks', () => {
    const dir = bundleDirectory('SettingsStatic');
    for (const file of ['settings.css', 'settings.js']) {
      expect(readFileSync(path.join(dir, 'static', file), 'utf8')).toBe(readFileSync(path.join('web/static', file), 'utf8'));
    }
  });

  it('ApiReference: carries the reference built from openapi.yaml beside its bundle, where its handler looks', () => {
    const dir = bundleDirectory('ApiReference');
    for (const file of API_REFERENCE_FILES) {
      expect(readFileSync(path.join(dir, 'api-reference', file), 'utf8')).toBe(readFileSync(path.join(API_REFERENCE_DIR, file), 'utf8'));
    }
  });

  it.each(ENTRIES.filter(({ name }) => REBUILT.has(name)))('$name: is byte for byte the bundle the bench measures (one shared set of options)', async ({ name }) => {
    expect((await rebuilt())[name]).toBe(readFileSync(path.join(bundleDirectory(name), 'index.mjs'), 'utf8'));
  });

  it('rebuilds one function of each catalogue group', () => {
    expect(REBUILT.size).toBe(9);
    for (const name of REBUILT) expect(ENTRIES.some((entry) => entry.name === name), name).toBe(true);
  });

  it.each(ENTRIES)('$name: within its size ceiling', ({ name }) => {
    const bytes = readFileSync(path.join(bundleDirectory(name), 'index.mjs')).length;
    expect(bytes, name).toBeLessThanOrEqual(bundleCeilingBytes(name));
  });

  it('lists as over the budget only deployed functions that are over it (one that fits comes off the list)', () => {
    for (const { name } of ENTRIES) {
      const bytes = readFileSync(path.join(bundleDirectory(name), 'index.mjs')).length;
      // A listed function that now fits comes off the list, so the budget holds it from then on.
      if (name in OVER_BUDGET) expect(bytes, `${name} fits the budget now: take it off OVER_BUDGET`).toBeGreaterThan(DEFAULT_BUNDLE_CEILING_BYTES);
    }
    expect(Object.keys(OVER_BUDGET).filter((name) => !ENTRIES.some((entry) => entry.name === name))).toEqual([]);
  });
});

describe('cdk-nag (AwsSolutionsChecks)', () => {
  interface ValidationReport {
    pluginReports: { pluginName: string; violations: { ruleName: string; violatingConstructs: { constructPath: string }[] }[] }[];
  }

  it('leaves no unacknowledged finding (synthesis would have thrown on an error; warnings are checked here)', () => {
    const file = path.join(s.assembly.directory, 'validation-report.json');
    const report = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as ValidationReport) : { pluginReports: [] };
    const open = report.pluginReports.flatMap((plugin) =>
      plugin.violations.map((v) => `${plugin.pluginName} ${v.ruleName} at ${v.violatingConstructs.map((c) => c.constructPath).join(', ')}`),
    );
    expect(open).toEqual([]);
  });

  it('acknowledges every finding with a written reason', () => {
    const acknowledgements: { id: string; reason: string; at: string }[] = [];
    const visit = (construct: IConstruct) => {
      for (const entry of construct.node.metadata) {
        if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
        for (const [id, reason] of Object.entries(entry.data as Record<string, string>)) acknowledgements.push({ id, reason, at: construct.node.path });
      }
      construct.node.children.forEach(visit);
    };
    visit(s.service.api.node.root);
    // Recorded as `Annotation::<rule id>`; cdk-nag matches the rule id after the prefix.
    const nag = acknowledgements.filter((a) => a.id.replace(/^annotation::/i, '').startsWith('AwsSolutions-'));
    expect(nag.length).toBeGreaterThan(0);
    for (const { id, reason, at } of nag) expect(reason.length, `${id} at ${at}`).toBeGreaterThan(40);
  });

  it('does report a finding nobody acknowledged (the checks run at all)', () => {
    const app = new App();
    const stack = new Stack(app, 'Control');
    new Bucket(stack, 'Unlogged', { enforceSSL: true });
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    expect(() => app.synth()).toThrow(/AwsSolutions-S1/);
  });
});
