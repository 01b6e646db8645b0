/**
 * One function's execution environment in a process of its own, for
 * test/infra/function-environment.test.ts: started with exactly the environment the template
 * gives the function (and nothing of the test's own), it loads the function's bundle on the first
 * event (its cold start) and invokes its handler once per event, as Lambda does. The test bundles
 * this file too and starts it with plain Node:
 *
 *   node <this file's bundle> <the function's bundle, an absolute path> <function name>
 *
 * Events arrive on stdin, one JSON line each ({id, event}); results leave on file descriptor 3,
 * one JSON line each ({id, result} or {id, error}), so the function's own logs (stdout) never mix
 * with them. The host ends when stdin closes, so it cannot outlive the test that started it.
 */
import { createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { lambdaContext, loadHandler } from '../../local/lambda-runtime.js';
import { resolveLocalhostSubdomains } from '../../local/local-aws.js';

const [entry, functionName] = process.argv.slice(2);
if (!entry || !functionName) throw new Error('usage: function-host <bundle> <function name>');

// The local network, not configuration: fauxqs queue URLs are `sqs.<region>.localhost` names.
resolveLocalhostSubdomains();

const results = createWriteStream('', { fd: 3 });
const invocations = createInterface({ input: process.stdin });

for await (const line of invocations) {
  const { id, event } = JSON.parse(line) as { id: number; event: unknown };
  let answer: { id: number; result?: unknown; error?: string };
  try {
    const handler = await loadHandler(entry);
    answer = { id, result: (await handler(event, lambdaContext(functionName, 60_000))) ?? null };
  } catch (error) {
    answer = { id, error: error instanceof Error ? `${error.name}: ${error.message}\n${String(error.cause ?? '')}` : String(error) };
  }
  results.write(`${JSON.stringify(answer)}\n`);
}
// SDK keep-alive sockets would hold the process: it ends with its input, like an execution environment reclaimed.
results.end(() => process.exit(0));
