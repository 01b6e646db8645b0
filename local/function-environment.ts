/**
 * The environment one deployed function runs with, bound to the local stack instead of AWS: its
 * synthesized AWS::Lambda::Function's variables, each AWS-only one replaced by the local variables
 * that stand in for it, plus what the runtime gives every function (region, credentials) and the
 * local endpoints. test/infra/function-environment.test.ts runs every function with exactly this
 * environment (so it is enough), and `npm run sam-env` (local/sam-env.ts) writes it for `sam local`.
 */
import { ENV } from '../lib/config.js';
import { SANDBOX_CLIENT_ENV } from './sandbox/index.js';

/** AWS-only variables and the local variables that stand in for them. */
export const LOCAL_STAND_INS: Readonly<Record<string, readonly string[]>> = {
  [ENV.cursorSigningKeySecretId]: [ENV.cursorSigningKey],
  [ENV.tokenKmsKeyId]: [ENV.localTokenKeyFile],
  // The secret holds the platforms' OAuth clients; locally those of the sandbox, which also
  // stands in for the platforms' hosts.
  [ENV.platformCredentialsSecretId]: [...Object.keys(SANDBOX_CLIENT_ENV), ENV.xApiBaseUrl, ENV.linkedinApiBaseUrl],
  // The client ids alone (the start of a connect): the sandbox's, and its hosts.
  [ENV.xClientId]: [ENV.xClientId, ENV.xApiBaseUrl],
  [ENV.linkedinClientId]: [ENV.linkedinClientId, ENV.linkedinApiBaseUrl],
  // The S3 emulator answers path-style requests only.
  [ENV.mediaBucket]: [ENV.mediaBucket, ENV.mediaForcePathStyle],
  // No STS locally: uploads are signed with the local credentials, and the upload stand-in checks them.
  [ENV.mediaUploadSignerRoleArn]: [ENV.mediaUploadUrl],
};

/** Not configuration: what Lambda gives every function (region, credentials) and the local endpoints. */
export const LOCAL_RUNTIME: readonly string[] = [
  'AWS_REGION',
  'AWS_DEFAULT_REGION',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_ENDPOINT_URL_DYNAMODB',
  'AWS_ENDPOINT_URL_SQS',
  'AWS_ENDPOINT_URL_S3',
  'AWS_ENDPOINT_URL_SCHEDULER',
];

export class LocalVariableMissingError extends Error {
  readonly code = 'local_variable_missing';
  constructor(readonly variable: string) {
    super(`The local stack sets no ${variable}: give it a stand-in in LOCAL_STAND_INS (local/function-environment.ts)`);
    this.name = 'LocalVariableMissingError';
  }
}

/**
 * A function's local environment from its template variables and the local stack's environment
 * (stack.json `env`). Powertools settings and NODE_OPTIONS are the template's own values.
 */
export function localFunctionEnvironment(templateVariables: Record<string, unknown>, stackEnv: Readonly<Record<string, string>>): Record<string, string> {
  const env: Record<string, string> = {};
  const fromStack = (variable: string) => {
    const value = stackEnv[variable];
    if (value === undefined) throw new LocalVariableMissingError(variable);
    env[variable] = value;
  };
  LOCAL_RUNTIME.forEach(fromStack);
  for (const [variable, value] of Object.entries(templateVariables)) {
    if (variable.startsWith('POWERTOOLS_') || variable === 'NODE_OPTIONS') env[variable] = String(value);
    else (LOCAL_STAND_INS[variable] ?? [variable]).forEach(fromStack);
  }
  return env;
}
