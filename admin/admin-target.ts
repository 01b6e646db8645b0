/**
 * How the admin CLI finds a running local stack: `npm start` writes DATA_DIR/stack.json with its
 * endpoints, table names and the environment its handlers run with; the CLI adopts that
 * environment so its SDK clients talk to the same DynamoDB Local and S3 emulator, and its token
 * cipher uses the same key file.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ENV } from '../lib/config.js';
import { LOCAL_CREDENTIALS, resolveLocalhostSubdomains } from '../local/local-aws.js';
import type { StackInfo } from '../local/stack.js';

/** The part of stack.json (StackInfo, written by local/stack.ts) that the CLI needs. */
export type StackFile = Pick<StackInfo, 'dynamodbEndpoint' | 's3Endpoint' | 'region' | 'mediaBucket' | 'mediaBaseUrl' | 'env'> & {
  tables: Pick<StackInfo['tables'], 'directory'>;
};

export class StackFileError extends Error {
  readonly code = 'stack_file_unusable';
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'StackFileError';
  }
}

function field(value: unknown, name: string, path: string): string {
  if (typeof value !== 'string' || value === '') throw new StackFileError(`${path} has no ${name}: is it from an older version? Restart \`npm start\``);
  return value;
}

export function parseStackFile(raw: unknown, path: string): StackFile {
  if (typeof raw !== 'object' || raw === null) throw new StackFileError(`${path} is not a JSON object`);
  const record = raw as Record<string, unknown>;
  const tables = (typeof record.tables === 'object' && record.tables !== null ? record.tables : {}) as Record<string, unknown>;
  const env: Record<string, string> = {};
  if (typeof record.env === 'object' && record.env !== null) {
    for (const [name, value] of Object.entries(record.env)) if (typeof value === 'string') env[name] = value;
  }
  return {
    dynamodbEndpoint: field(record.dynamodbEndpoint, 'dynamodbEndpoint', path),
    s3Endpoint: field(record.s3Endpoint, 's3Endpoint', path),
    region: field(record.region, 'region', path),
    tables: { directory: field(tables.directory, 'tables.directory', path) },
    mediaBucket: field(record.mediaBucket, 'mediaBucket', path),
    mediaBaseUrl: field(record.mediaBaseUrl, 'mediaBaseUrl', path),
    env,
  };
}

export async function readStackFile(dataDir: string): Promise<StackFile> {
  const path = join(dataDir, 'stack.json');
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new StackFileError(
      `No local stack found (${path} is missing). Start it with \`npm start\`, set DATA_DIR, or pass --aws for deployed tables`,
      { cause: error },
    );
  }
  try {
    return parseStackFile(JSON.parse(text), path);
  } catch (error) {
    if (error instanceof StackFileError) throw error;
    throw new StackFileError(`${path} is not valid JSON`, { cause: error });
  }
}

/** Points this process at the local stack: the handlers' environment, then the endpoints and names. */
export function applyStackEnvironment(stack: StackFile, env: NodeJS.ProcessEnv = process.env): void {
  Object.assign(env, stack.env);
  env.AWS_ENDPOINT_URL_DYNAMODB = stack.dynamodbEndpoint;
  env.AWS_ENDPOINT_URL_S3 = stack.s3Endpoint;
  env.AWS_REGION = stack.region;
  // Local emulators check no signature; fixed credentials keep the default chain from probing
  // profiles or instance metadata, and can never be real ones.
  env.AWS_ACCESS_KEY_ID = LOCAL_CREDENTIALS.accessKeyId;
  env.AWS_SECRET_ACCESS_KEY = LOCAL_CREDENTIALS.secretAccessKey;
  delete env.AWS_SESSION_TOKEN;
  delete env.AWS_PROFILE;
  env[ENV.directoryTable] = stack.tables.directory;
  env[ENV.mediaBucket] = stack.mediaBucket;
  env[ENV.mediaBaseUrl] = stack.mediaBaseUrl;
  env[ENV.mediaForcePathStyle] ??= 'true';
  // Locally tokens are sealed with the key file; a KMS key id left in the shell must not win.
  delete env[ENV.tokenKmsKeyId];
  resolveLocalhostSubdomains();
}
