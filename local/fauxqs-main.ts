/**
 * fauxqs (SQS and S3) as a process of its own, an emulator apart from the service as DynamoDB
 * Local and the sandbox platforms are (started by fauxqs-process.ts; the bench's): on AWS, SQS
 * and S3 are not on the CPU of any function, so serving a burst's receives and deletes must not
 * take the thread the publish worker runs on. Memory only (no media mirror).
 *
 * Prints one line `{"port":<port>}` on stdout once it listens; ends when its stdin (held by the
 * parent) closes, or on SIGTERM / SIGINT.
 */
import { startFauxqsServer } from './messaging.js';

async function main(): Promise<void> {
  const fauxqs = await startFauxqsServer({ mediaMirror: false });
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    fauxqs.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  // The parent holds our stdin open; when it is gone for any reason (even kill -9), so are we.
  process.stdin.on('end', stop);
  process.stdin.on('error', stop);
  process.stdin.resume();
  process.stdout.write(`${JSON.stringify({ port: fauxqs.port })}\n`);
}

main().catch((error: unknown) => {
  console.error('[fauxqs] could not start:', error instanceof Error ? error.message : String(error));
  process.exit(1);
});
