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
import { API_ROUTES, ASSISTANT_ROUTES, DEFAULT_ROUTE, QUEUE_CONSUMERS, SETTINGS_ROUTES, SWEEPER } from '../../functions/catalogue.js';
import { build } from 'esbuild';
import { FUNCTIONS as BENCH_FUNCTIONS } from '../../bench/phases/cold.js';
import { BUDGETS } from '../../bench/report.js';
import { ESM_REQUIRE_BANNER, EVENT_STREAMS, esbuildOptions, externalModules } from '../../infra/constructs/bundling.js';
import { REPO_ROOT } from '../../infra/constructs/service-function.js';
import { entryPath, loadHandler } from '../../local/lambda-runtime.js';
import { logicalId, synthesize } from './synth.js';
import type { Synthesized } from './synth.js';

let s: Synthesized;
beforeAll(() => {
  s = synthesize({ bundle: true });
}, 300_000);
afterAll(() => s?.cleanup());

// The assistant server's routes share entries (the MCP entry serves three routes): one function per entry.
const ASSISTANT_ENTRIES = ASSISTANT_ROUTES.filter((route, index) => ASSISTANT_ROUTES.findIndex((other) => other.entry === route.entry) === index);
const ENTRIES = [...API_ROUTES, ...QUEUE_CONSUMERS, SWEEPER, DEFAULT_ROUTE, ...SETTINGS_ROUTES, ...ASSISTANT_ENTRIES].map(({ name, entry }) => ({ name, entry }));

function bundleDirectory(name: string): string {
  const fn = s.service.api.functions.get(name)!;
  const code = s.apiJson.Resources[logicalId(fn)]!.Properties!.Code as { S3Key: string };
  return path.join(s.assembly.directory, `asset.${code.S3Key.replace(/\.zip$/, '')}`);
}

/**
 * Each bundle is held to the bench's budget (bench/report.ts, BUDGETS.bundleBytes: 250 kB), but
 * for the functions below, which cannot get there with the AWS SDK bundled (README, "Function
 * bundles", says why with figures: the DynamoDB client with the SDK core it needs is ~185 kB and
 * Powertools Logger 17 kB before any code of ours; the MCP SDK with zod ~180 kB). Each has a
 * ceiling about 3% above its size today (in comments, kB of 1,000 bytes), so none grows unnoticed.
 */
const OVER_BUDGET: Readonly<Record<string, number>> = {
  // DynamoDB only; the function's own code is what passes 250 kB.
  SettingsOverview: 260_000, // 250.1 kB
  SettingsAssistantConsentAnswer: 265_000, // 253.9 kB
  SettingsAssistantConsent: 265_000, // 255.6 kB
  ListAccounts: 270_000, // 257.7 kB
  GetPost: 275_000, // 264.7 kB
  // DynamoDB, and the media bucket through signed requests (lib/store/s3-signed-requests.ts, no S3 client).
  SettingsMedia: 260_000, // 250.3 kB
  // DynamoDB and openid-client (oauth4webapi, 20 kB).
  SettingsSignIn: 270_000, // 260.4 kB
  SettingsAuthCallback: 270_000, // 260.9 kB
  SettingsSignOut: 280_000, // 268.1 kB
  // DynamoDB and the webhook endpoints' store, use case and rules (lib/web/webhook-dependencies.ts).
  SettingsWebhooks: 275_000, // 264.8 kB
  SettingsWebhookStatus: 265_000, // 257.1 kB
  SettingsDeleteWebhook: 265_000, // 256.9 kB
  // The same with KMS (a new signing secret) or SQS (a test event or a resend).
  SettingsRotateWebhookSecret: 300_000, // 289.3 kB
  SettingsSendWebhook: 300_000, // 290.9 kB
  SettingsCreateWebhook: 305_000, // 295.2 kB (and the URL resolver)
  // A second and third SDK client (SQS, Scheduler, KMS, Secrets Manager: 14-28 kB each).
  Sweeper: 290_000, // 277.4 kB
  SettingsAccounts: 290_000, // 279.7 kB
  SettingsPosts: 295_000, // 285.2 kB
  ListPosts: 300_000, // 286.9 kB
  SettingsCancelPost: 325_000, // 314.6 kB
  SettingsConnectStart: 330_000, // 316.3 kB
  SettingsConnectXCallback: 330_000, // 316.4 kB
  SettingsConnectLinkedinCallback: 330_000, // 316.4 kB
  PlatformDeletionWorker: 335_000, // 324.8 kB
  DeletePost: 340_000, // 325.3 kB
  PublishWorker: 395_000, // 380.3 kB
  CreatePosts: 405_000, // 388.4 kB (twitter-text: 27 kB)
  // The MCP SDK and zod 4 (103 kB), four SDK clients, twitter-text.
  Mcp: 630_000, // 609.6 kB
};

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
    // statically would fail here. A clean environment, like the bench's cold phase.
    const file = path.join(bundleDirectory(name), 'index.mjs');
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', 'const m = await import(process.argv[1]); process.stdout.write(typeof m.handler);', file], {
      env: { PATH: process.env.PATH ?? '' },
    });
    expect(stdout).toBe('function');
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

  it.each(ENTRIES)('$name: is byte for byte the bundle the bench measures (one shared set of options), within its size ceiling', async ({ name, entry }) => {
    const out = await build({ ...esbuildOptions(entry, path.join(REPO_ROOT, 'index.mjs')), absWorkingDir: REPO_ROOT, write: false, logLevel: 'error' });
    const code = out.outputFiles.find((file) => file.path.endsWith('index.mjs'))?.text;
    expect(code).toBe(readFileSync(path.join(bundleDirectory(name), 'index.mjs'), 'utf8'));
    expect(Buffer.byteLength(code ?? ''), name).toBeLessThanOrEqual(OVER_BUDGET[name] ?? BUDGETS.bundleBytes);
  });

  it('lists as over the budget only deployed functions that are over it (one that fits comes off the list)', () => {
    for (const { name } of ENTRIES) {
      const bytes = readFileSync(path.join(bundleDirectory(name), 'index.mjs')).length;
      // A listed function that now fits comes off the list, so the budget holds it from then on.
      if (name in OVER_BUDGET) expect(bytes, `${name} fits the budget now: take it off OVER_BUDGET`).toBeGreaterThan(BUDGETS.bundleBytes);
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
