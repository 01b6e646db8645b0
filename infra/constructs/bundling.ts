/**
 * How every function is bundled, declared once: the CDK app (service-function.ts, through
 * cdkBundling) and the bench's cold-start phase (bench/phases/cold.ts, through esbuildOptions)
 * both read FUNCTION_BUNDLING, so the bench measures the very bundle `cdk deploy` uploads:
 *
 *   esbuild --bundle <entry> --target=node22 --platform=node --format=esm --outfile=index.mjs
 *     --minify --sourcemap --sources-content=false --external:<each> --banner:js=<banner>
 *     --main-fields=module,main
 *
 * (the arguments aws-cdk-lib's NodejsFunction passes for these options). The source map is
 * "linked" (a sourceMappingURL comment), as CDK writes it, so with NODE_OPTIONS=--enable-source-maps
 * Node reads the map when the bundle loads, and the bench's import time includes that.
 *
 * The AWS SDK is bundled (`awsSdk: 'bundled'`). The Lambda nodejs22.x runtime ships SDK v3 too,
 * and leaving `@aws-sdk/*` and `@smithy/*` out would shrink every bundle by 218-293 kB, but
 * (README, "Function bundles") importing the SDK from node_modules took 2-3 times as long as the
 * bundled, minified copy, and the deployed code would run whatever SDK version the runtime
 * carries that day, not the one package-lock.json pins and the tests ran. The bench measures the
 * other choice every run (`awsSdk: 'runtime'`), so the trade-off stays visible.
 */
import type { BuildOptions } from 'esbuild';

/**
 * The bundle is ESM (the code is ESM, and top-level await works there); some dependencies still
 * call `require` for Node built-ins, which does not exist in an ES module, so the banner defines it.
 */
export const ESM_REQUIRE_BANNER = "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";

/**
 * Credential providers of the SDK's default chain that a Lambda function never reaches: Lambda
 * puts the role's credentials in environment variables, which the chain reads first, and the
 * chain loads these with a dynamic import() only when every earlier provider found nothing. Left
 * out of the bundle they save about 100 kB per function (their SSO/STS/sign-in clients), measured
 * by `npm run bench`; everything a function does run stays bundled.
 */
export const UNREACHED_CREDENTIAL_PROVIDERS = [
  '@aws-sdk/credential-provider-ini',
  '@aws-sdk/credential-provider-process',
  '@aws-sdk/credential-provider-sso',
  '@aws-sdk/credential-provider-web-identity',
];

/** What the Lambda runtime provides: the SDK v3 packages (CDK's own default externals). */
export const RUNTIME_PROVIDED_SDK = ['@aws-sdk/*', '@smithy/*'];

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

export function externalModules(awsSdk: AwsSdkChoice = FUNCTION_BUNDLING.awsSdk): string[] {
  return awsSdk === 'runtime' ? [...RUNTIME_PROVIDED_SDK] : [...UNREACHED_CREDENTIAL_PROVIDERS];
}

/** The same bundle through esbuild's API, for the bench (`awsSdk` to measure the other choice). */
export function esbuildOptions(entryPoint: string, outfile: string, awsSdk: AwsSdkChoice = FUNCTION_BUNDLING.awsSdk): BuildOptions {
  return {
    entryPoints: [entryPoint],
    outfile,
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
  };
}
