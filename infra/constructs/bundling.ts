/**
 * How every function is bundled, declared once: the CDK app (service-function.ts, through
 * cdkBundling) and the bench's cold-start phase (bench/phases/cold.ts, through esbuildOptions)
 * both read FUNCTION_BUNDLING, so the bench measures the very bundle `cdk deploy` uploads:
 *
 *   esbuild --bundle <entry> --target=node22 --platform=node --format=esm --outfile=index.mjs
 *     --minify --sourcemap --sources-content=false --external:<each> --banner:js=<banner>
 *     --main-fields=module,main --alias:core-js=no-polyfills (and each of BUNDLE_ALIASES)
 *
 * (the arguments aws-cdk-lib's NodejsFunction passes for these options). The source map is
 * "linked" (a sourceMappingURL comment), as CDK writes it, so with NODE_OPTIONS=--enable-source-maps
 * Node reads the map when the bundle loads, and the bench's import time includes that.
 *
 * The AWS SDK is bundled (`awsSdk: 'bundled'`). The Lambda nodejs22.x runtime ships SDK v3 too,
 * and leaving `@aws-sdk/*` and `@smithy/*` out would shrink every bundle, but importing the SDK
 * from node_modules took longer than the bundled, minified copy (docs/performance.md, "Function
 * bundles"), and the deployed code would run whatever SDK version the runtime carries that day,
 * not the one package-lock.json pins and the tests ran. The bench measures the other choice every run (`awsSdk: 'runtime'`), so the
 * trade-off stays visible.
 */
import type { BuildOptions } from 'esbuild';

/**
 * The bundle is ESM (the code is ESM, and top-level await works there); some dependencies still
 * call `require` for Node built-ins, which does not exist in an ES module, so the banner defines it.
 */
export const ESM_REQUIRE_BANNER = "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";

/**
 * Modules of the SDK that our functions never run, and that the SDK loads only with a dynamic
 * import() on the path that needs them, so leaving them out of the bundle changes nothing that
 * runs (test/infra/bundles.test.ts checks that each is only ever reached through import() in every
 * bundle; were a static import left, the function would fail to load, not later):
 *
 * - the credential providers of the default chain past the environment: Lambda puts the role's
 *   credentials in environment variables, which the chain reads first, and loads each later
 *   provider (SSO, ini files, a process, web identity, the container and instance metadata
 *   services, the container HTTP endpoint) only when every earlier one found nothing. The first
 *   four bring their SSO/STS/sign-in clients into every function (sizes: docs/performance.md,
 *   "Function bundles").
 * - the event-stream serde (`@smithy/core/event-streams`, with its message codec and checksums):
 *   the protocol loads it when an operation streams events (S3 SelectObjectContent,
 *   Bedrock, Transcribe...), which none of DynamoDB, SQS, Scheduler, KMS or Secrets Manager has.
 *   (S3's client imports it at start; no function carries that client: the media functions sign
 *   plain requests to the bucket, lib/store/s3-signed-requests.ts.)
 *
 * Measured with `BENCH_ONLY=cold npm run bench`; everything a function does run stays bundled.
 */
export const UNREACHED_CREDENTIAL_PROVIDERS = [
  '@aws-sdk/credential-provider-ini',
  '@aws-sdk/credential-provider-process',
  '@aws-sdk/credential-provider-sso',
  '@aws-sdk/credential-provider-web-identity',
  '@smithy/credential-provider-imds',
  '@aws-sdk/credential-provider-http',
];

export const EVENT_STREAMS = '@smithy/core/event-streams';

/** What the Lambda runtime provides: the SDK v3 packages (CDK's own default externals). */
export const RUNTIME_PROVIDED_SDK = ['@aws-sdk/*', '@smithy/*'];

/**
 * Imports the bundles resolve to another package:
 *
 * - `core-js` (version 2, which twitter-text's build imports module by module) becomes
 *   `no-polyfills` (infra/no-polyfills), where every `core-js/modules/*` is one empty module: the
 *   functions run on Node 22, which has every built-in those polyfills would add, and core-js 2
 *   only adds non-standard globals there (test/infra/no-polyfills.test.ts loads the very modules a
 *   bundle would carry and checks that no standard built-in changes). 20 kB less where
 *   twitter-text is bundled.
 * - `ajv` and `ajv-formats` become `no-ajv` (infra/no-ajv), whose constructor throws: the MCP SDK
 *   imports its ajv validator at load but builds it only for a server given no validator, and ours
 *   is given one (lib/mcp/mcp-endpoint.ts); test/infra/bundles.test.ts runs an MCP exchange on a
 *   bundle built this way. 133 kB less in the MCP function (ajv, ajv-formats, fast-uri).
 * - `zod/v3` and `zod-to-json-schema` become `no-zod-v3` (infra/no-zod-v3), whose functions throw:
 *   the MCP SDK imports both to accept tool schemas written with Zod 3 and uses them only for such
 *   a schema; ours are Zod 4 (lib/mcp/tool-schemas.ts), and the same bundled MCP exchange proves
 *   it. 78 kB less in the MCP function.
 * - `@aws-sdk/endpoint-cache` becomes `small-endpoint-cache` (infra/small-endpoint-cache): the same
 *   EndpointCache on a Map instead of mnemonist's LRU cache (test/infra/small-endpoint-cache.test.ts
 *   runs both through the same random operations). The DynamoDB client builds one at start for
 *   endpoint discovery, which none of its commands uses. 8 kB less in every function with that client.
 */
export const BUNDLE_ALIASES: Readonly<Record<string, string>> = {
  'core-js': 'no-polyfills',
  ajv: 'no-ajv',
  'ajv-formats': 'no-ajv/formats',
  'zod/v3': 'no-zod-v3',
  'zod-to-json-schema': 'no-zod-v3/to-json-schema',
  '@aws-sdk/endpoint-cache': 'small-endpoint-cache',
};

export type AwsSdkChoice = 'bundled' | 'runtime';

export const FUNCTION_BUNDLING = {
  format: 'esm',
  target: 'node22',
  platform: 'node',
  mainFields: ['module', 'main'],
  banner: ESM_REQUIRE_BANNER,
  minify: true,
  sourceMap: 'linked',
  sourcesContent: false,
  awsSdk: 'bundled' as AwsSdkChoice,
} as const;

/** What stays out of every function's bundle (the same for all: no function carries a module that imports one of these statically). */
export function externalModules(awsSdk: AwsSdkChoice = FUNCTION_BUNDLING.awsSdk): string[] {
  if (awsSdk === 'runtime') return [...RUNTIME_PROVIDED_SDK];
  return [...UNREACHED_CREDENTIAL_PROVIDERS, EVENT_STREAMS];
}

/** Every option of a function's bundle but what it is built from and into. */
function bundleOptions(awsSdk: AwsSdkChoice): BuildOptions {
  return {
    bundle: true,
    format: FUNCTION_BUNDLING.format,
    target: FUNCTION_BUNDLING.target,
    platform: FUNCTION_BUNDLING.platform,
    mainFields: [...FUNCTION_BUNDLING.mainFields],
    banner: { js: FUNCTION_BUNDLING.banner },
    minify: FUNCTION_BUNDLING.minify,
    sourcemap: FUNCTION_BUNDLING.sourceMap,
    sourcesContent: FUNCTION_BUNDLING.sourcesContent,
    external: externalModules(awsSdk),
    alias: { ...BUNDLE_ALIASES },
  };
}

/**
 * The same bundle through esbuild's API, for the bench (`awsSdk` to measure the other choice).
 * `entry` is repository-relative (functions/catalogue.ts): build with `absWorkingDir` the repository root.
 */
export function esbuildOptions(entry: string, outfile: string, awsSdk: AwsSdkChoice = FUNCTION_BUNDLING.awsSdk): BuildOptions {
  return { entryPoints: [entry], outfile, ...bundleOptions(awsSdk) };
}

/**
 * Many functions' bundles in one esbuild run, for the tests: without code splitting each entry is
 * still bundled on its own, as esbuildOptions builds it, into `<outdir>/<name>/index.mjs` (the file
 * name its source map comment names, as with `outfile`), and the modules the entries share are
 * read and parsed once instead of once per function. Build with `absWorkingDir` the repository root.
 */
export function esbuildOptionsForEach(entries: readonly { name: string; entry: string }[], outdir: string): BuildOptions {
  return { entryPoints: entries.map(({ name, entry }) => ({ in: entry, out: `${name}/index` })), outdir, outExtension: { '.js': '.mjs' }, ...bundleOptions(FUNCTION_BUNDLING.awsSdk) };
}
