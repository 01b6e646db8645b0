/**
 * What the Lambda runtime does for a function, locally: load the module named by an entry of
 * functions/catalogue.ts once (its cold start: module-scope code, config reads and SDK clients run
 * then, after the stack has set the environment) and call its `handler` export with an event and
 * a context object shaped like the real one.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from './local-aws.js';

export const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));

/** A Lambda handler in its async form (event, context) → result; the local stack calls nothing else. */
export type LambdaHandler = (event: unknown, context: Context) => Promise<unknown>;

export class HandlerLoadError extends Error {
  readonly code = 'handler_load_failed';
  constructor(entry: string, options: { cause?: unknown } = {}) {
    super(`Could not load the handler of ${entry}`, options);
    this.name = 'HandlerLoadError';
  }
}

export function entryPath(entry: string): string {
  return resolve(REPO_ROOT, entry);
}

/** Whether the module of an entry exists yet (routes and consumers whose module is absent are not deployed). */
export function entryExists(entry: string): boolean {
  return existsSync(entryPath(entry));
}

const loaded = new Map<string, Promise<LambdaHandler>>();

export function loadHandler(entry: string): Promise<LambdaHandler> {
  let handler = loaded.get(entry);
  if (!handler) {
    handler = import(pathToFileURL(entryPath(entry)).href).then(
      (module: { handler?: unknown }) => {
        if (typeof module.handler !== 'function') throw new Error(`${entry} has no \`handler\` export`);
        return module.handler as LambdaHandler;
      },
      (error: unknown) => {
        throw new HandlerLoadError(entry, { cause: error });
      },
    );
    // Like a failed Lambda init: the next invocation tries again.
    handler.catch(() => loaded.delete(entry));
    loaded.set(entry, handler);
  }
  return handler;
}

export function lambdaContext(functionName: string, timeoutMs: number, requestId: string = randomUUID()): Context {
  const deadline = Date.now() + timeoutMs;
  const unsupported = (): never => {
    throw new Error('context.done/fail/succeed are not supported: return or throw from the async handler');
  };
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `local/[$LATEST]${randomUUID().replaceAll('-', '')}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: unsupported,
    fail: unsupported,
    succeed: unsupported,
  };
}
