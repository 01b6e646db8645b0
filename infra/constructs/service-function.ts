/**
 * One Lambda of the service, built the same way for every entry of functions/catalogue.ts: an
 * esbuild bundle of the very module the local stack imports, so what the tests run locally is
 * what is deployed.
 */
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { Aws, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { Duration } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { BUNDLE_ALIASES, externalModules, FUNCTION_BUNDLING } from './bundling.js';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Powertools' service name: the `service` dimension of every metric and field of every log line. */
export const SERVICE_NAME = 'social-publishing-api';
export const METRICS_NAMESPACE = 'SocialPublishing';

/**
 * The faces of the service, each with one log group its functions share (Lambda's advanced logging
 * names each function's streams `YYYY/MM/DD/<function name>[<version>]<guid>`, so a shared group
 * still tells the functions apart). One group per function cost a resource each, and the API stack
 * is bounded by CloudFormation's 500 resources (test/infra/template.test.ts, "stack size").
 */
export const LOG_FACES = ['api', 'settings', 'assistant', 'workers'] as const;
export type LogFace = (typeof LOG_FACES)[number];

/** `/<stack name>/<face>`: a name of our own (Lambda refuses custom groups starting with aws/). */
export function faceLogGroupName(stackName: string, face: LogFace): string {
  return `/${stackName}/${face}`;
}

/** One face's log group, with the retention and removal every function's group had before. */
export class FaceLogGroup extends LogGroup {
  /** The literal name (logGroupName is a reference), for grants fixed at synth. */
  readonly name: string;

  constructor(scope: Construct, readonly face: LogFace, retention: RetentionDays = RetentionDays.ONE_MONTH) {
    const name = faceLogGroupName(Stack.of(scope).stackName, face);
    super(scope, `${face.charAt(0).toUpperCase()}${face.slice(1)}Logs`, {
      logGroupName: name,
      // A month: the default keeps logs forever, and bills for them.
      retention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.name = name;
  }
}

/** Lambda's limit on a function name. */
const MAX_FUNCTION_NAME = 64;

/**
 * `<service name>-<id>` (the service's name is the API stack's): fixed at synth, so the role's log
 * grant can name the function's own streams without referring to the function (which depends on its
 * role's policy: a reference back would be a circular dependency).
 */
export function serviceFunctionName(serviceName: string, id: string): string {
  const name = `${serviceName}-${id}`;
  if (name.length > MAX_FUNCTION_NAME) throw new Error(`Function name ${name} is longer than Lambda's ${MAX_FUNCTION_NAME} characters: shorten ${id}`);
  return name;
}

/** The log streams a function writes in its face's shared group, and no other function's. */
export function ownLogStreamsArn(logGroupName: string, functionName: string): string {
  return `arn:${Aws.PARTITION}:logs:${Aws.REGION}:${Aws.ACCOUNT_ID}:log-group:${logGroupName}:log-stream:*/${functionName}[*`;
}

export interface ServiceFunctionProps {
  /** Module, relative to the repository root, whose `handler` export is the Lambda handler. */
  entry: string;
  description: string;
  timeout: Duration;
  memorySize: number;
  /** Its face's shared log group. */
  logGroup: FaceLogGroup;
  /**
   * The service's name, the first part of the function's name: the API stack's name wherever the
   * function's stack is, so a function keeps its name (and its log streams' grant) when the stack
   * layout moves it (infra/stacks/layout.ts).
   */
  serviceName: string;
  /** Concurrency set aside for this function alone (and its ceiling); unset: the account's shared pool. */
  reservedConcurrentExecutions?: number;
  /** A repository folder copied into the bundle (e.g. web/static for the settings' static route). */
  copyFiles?: { from: string; to: string };
  /** Node flags beside --enable-source-maps in NODE_OPTIONS (the import worker's --expose-gc). */
  nodeFlags?: readonly string[];
}

export class ServiceFunction extends NodejsFunction {
  /** The repository-relative entry this function bundles (the tests compare it with functions/catalogue.ts). */
  readonly entryModule: string;
  /** The absolute path esbuild bundles. */
  readonly entryPath: string;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    // The face's shared log group, and a role that may write only this function's own streams in
    // it, instead of the managed basic-execution policy that may write to every log group of the
    // account (or a grant on the group, which would let it write as its neighbours).
    const { logGroup } = props;
    const functionName = serviceFunctionName(props.serviceName, id);
    const role = new Role(scope, `${id}Role`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs ${id}: only the grants infra/stacks/function-access.ts gives it`,
    });
    role.addToPolicy(new PolicyStatement({ actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: [ownLogStreamsArn(logGroup.name, functionName)] }));
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:${logGroup.name}:log-stream:*/${functionName}[*]`,
      reason: 'Log streams are named by Lambda at run time (date, version, instance); the grant covers this function’s own streams in its face’s log group only.',
    });
    const entryPath = path.join(REPO_ROOT, props.entry);
    super(scope, id, {
      entry: entryPath,
      functionName,
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
        NODE_OPTIONS: ['--enable-source-maps', ...(props.nodeFlags ?? [])].join(' '),
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
