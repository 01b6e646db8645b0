/**
 * Waiting on the local queues instead of the clock: a test that must show that nothing more is
 * sent waits until every message of the queue has been handled (none visible, in flight or
 * delayed), then looks. A fixed pause proves nothing on a slow hour and wastes time on a fast one.
 */
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { sqsClientFor } from '../../local/messaging.js';

const COUNTS = ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'] as const;

/** True when the queue holds no message at all: every one sent to it was taken and deleted. */
export async function queueIdle(sqsEndpoint: string, queueUrl: string): Promise<boolean> {
  const sqs = sqsClientFor(sqsEndpoint);
  try {
    const out = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: [...COUNTS] }));
    const attributes: Record<string, string | undefined> = out.Attributes ?? {};
    return COUNTS.every((name) => Number(attributes[name] ?? '0') === 0);
  } finally {
    sqs.destroy();
  }
}

/** Polls `check` until it holds; fails with `what` after `timeoutMs` (generous: a limit for a broken run, not a budget). */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
