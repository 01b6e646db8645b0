/**
 * The sandbox platforms as a process of their own (started by process.ts for `npm start`), so
 * they stand apart from the service as X and LinkedIn do: a crash of the service does not take
 * their record with it, and their record (record.ts, under SANDBOX_JOURNAL_DIR) is what a crash
 * test checks the service against.
 *
 * Usage: `node --import tsx local/sandbox/main.ts <journal dir>` (the directory is on the command
 * line so that anyone can tell which stack a sandbox process belongs to, as DynamoDB Local's
 * -dbPath tells; `-` keeps no record, only memory, as the in-process sandbox does: the bench's).
 * Environment: SANDBOX_PORT (default 0: a free one), SANDBOX_DYNAMODB_ENDPOINT and
 * SANDBOX_DIRECTORY_TABLE (where each account's `--sandbox` behaviour is read; every account is
 * `ok` without them), SANDBOX_BEHAVIOUR_REUSE_MS (directory-behaviour.ts `reuseMs`, default 0).
 * Prints one line `{"origin":"http://127.0.0.1:<port>"}` on stdout once it listens.
 */
import { optionalEnv } from '../../lib/config.js';
import { directoryBehaviour } from './directory-behaviour.js';
import { startSandboxPlatforms } from './index.js';

async function main(): Promise<void> {
  const journalDir = process.argv[2];
  if (journalDir === undefined || journalDir === '') throw new Error('usage: local/sandbox/main.ts <journal dir | ->');
  const port = Number(optionalEnv('SANDBOX_PORT', '0'));
  const endpoint = optionalEnv('SANDBOX_DYNAMODB_ENDPOINT', '');
  const table = optionalEnv('SANDBOX_DIRECTORY_TABLE', '');
  const reuseMs = Number(optionalEnv('SANDBOX_BEHAVIOUR_REUSE_MS', '0'));
  const directory = endpoint !== '' && table !== '' ? directoryBehaviour(endpoint, table, { reuseMs }) : null;
  const platforms = await startSandboxPlatforms({
    port,
    ...(journalDir === '-' ? {} : { journalDir }),
    accountBehaviour: directory?.accountBehaviour ?? (async () => 'ok'),
    ...(directory ? { xSubscription: directory.xSubscription } : {}),
  });
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    platforms.stop().then(
      () => {
        directory?.close();
        process.exit(0);
      },
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  // The parent holds our stdin open; when it is gone for any reason (even kill -9), so are we.
  process.stdin.on('end', stop);
  process.stdin.on('error', stop);
  process.stdin.resume();
  process.stdout.write(`${JSON.stringify({ origin: platforms.origin })}\n`);
}

main().catch((error: unknown) => {
  console.error('[sandbox] could not start:', error instanceof Error ? error.message : String(error));
  process.exit(1);
});
