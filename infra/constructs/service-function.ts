/**
 * One Lambda of the service, built the same way for every entry of functions/catalogue.ts: an
 * esbuild bundle of the very module the local stack imports, so what the tests run locally is
 * what is deployed.
 */
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { Duration } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { BUNDLE_ALIASES, externalModules, FUNCTION_BUNDLING } from './bundling.js';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Powertools' service name: the `service` dimension of every metric and field of every log line. */
export const SERVICE_NAME = 'social-publishing-api';
export const METRICS_NAMESPACE = 'SocialPublishing';

export interface ServiceFunctionProps {
  /** Module, relative to the repository root, whose `handler` export is the Lambda handler. */
  entry: string;
  description: string;
  timeout: Duration;
  memorySize: number;
  logRetention?: RetentionDays;
  /** Concurrency set aside for this function alone (and its ceiling); unset: the account's shared pool. */
  reservedConcurrentExecutions?: number;
  /** A repository folder copied into the bundle (e.g. web/static for the settings' static route). */
  copyFiles?: { from: string; to: string };
}

export class ServiceFunction extends NodejsFunction {
  /** The repository-relative entry this function bundles (the tests compare it with functions/catalogue.ts). */
  readonly entryModule: string;
  /** The absolute path esbuild bundles. */
  readonly entryPath: string;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    // A log group of our own: a retention (the default keeps logs forever, and bills for them)
    // and a role that may write to this log group only, instead of the managed basic-execution
    // policy that may write to every log group of the account.
    const logGroup = new LogGroup(scope, `${id}Logs`, {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const role = new Role(scope, `${id}Role`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs ${id}: only the grants infra/stacks/function-access.ts gives it`,
    });
    logGroup.grantWrite(role);
    const entryPath = path.join(REPO_ROOT, props.entry);
    super(scope, id, {
      entry: entryPath,
      handler: 'handler',
      description: props.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize,
      timeout: props.timeout,
      ...(props.reservedConcurrentExecutions === undefined ? {} : { reservedConcurrentExecutions: props.reservedConcurrentExecutions }),
      role,
      logGroup,
      projectRoot: REPO_ROOT,
      depsLockFilePath: path.join(REPO_ROOT, 'package-lock.json'),
      // FUNCTION_BUNDLING (bundling.ts), shared with the bench's cold-start phase. The AWS SDK is
      // bundled: the deployed code runs the SDK versions package-lock.json pins and the tests ran.
      bundling: {
        format: OutputFormat.ESM,
        target: FUNCTION_BUNDLING.target,
        platform: FUNCTION_BUNDLING.platform,
        mainFields: [...FUNCTION_BUNDLING.mainFields],
        banner: FUNCTION_BUNDLING.banner,
        minify: FUNCTION_BUNDLING.minify,
        // `--sourcemap` with no mode: esbuild's "linked", FUNCTION_BUNDLING.sourceMap.
        sourceMap: FUNCTION_BUNDLING.sourceMap === 'linked',
        sourcesContent: FUNCTION_BUNDLING.sourcesContent,
        externalModules: externalModules(),
        esbuildArgs: { '--alias': Object.entries(BUNDLE_ALIASES).map(([from, to]) => `${from}=${to}`) },
        // No Docker here or in CI: the esbuild devDependency bundles.
        forceDockerBundling: false,
        ...(props.copyFiles
          ? {
              commandHooks: {
                beforeBundling: () => [],
                beforeInstall: () => [],
                afterBundling: (inputDir: string, outputDir: string) => [
                  `cp -R "${path.join(inputDir, props.copyFiles?.from ?? '')}" "${path.join(outputDir, props.copyFiles?.to ?? '')}"`,
                ],
              },
            }
          : {}),
      },
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
        POWERTOOLS_LOG_LEVEL: 'INFO',
      },
    });
    this.entryModule = props.entry;
    this.entryPath = entryPath;
    Validations.of(this).acknowledge({
      id: 'AwsSolutions-L1',
      reason:
        'nodejs22.x is the runtime the service is built and tested for (Node 22 LTS, supported until 2027-04); moving to nodejs24.x is a deliberate upgrade with its own test run.',
    });
  }
}
