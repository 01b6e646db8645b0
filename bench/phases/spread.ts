/** Phase `spread` (publish lag, 2 of 2): 200 posts over two minutes, one every 600 ms, alternating platforms. */
import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { RunningStack } from '../../local/stack.js';
import { createPosts, inParallel, log, type BenchContext, type BenchUser } from '../harness.js';
import { postsOf } from '../posts-table.js';
import { budget, BUDGETS, type PhaseOutcome } from '../report.js';
import { startLagReceiver, subscribe, webhookLag, webhookLagReport, type WebhookLagFigures } from '../webhook-lag.js';
import { lagFigures, lagReport, waitForOutcomes, type LagFigures } from './publish-lag.js';

export async function spreadPhase({ stack, db, users }: BenchContext): Promise<PhaseOutcome> {
  log('publish lag: 200 posts over two minutes');
  const receiver = await startLagReceiver();
  let spread: LagFigures & { webhooks?: WebhookLagFigures };
  try {
    await subscribe(stack, users.spread, receiver);
    spread = await spreadLoad(stack, db, users.spread);
    spread = { ...spread, webhooks: await webhookLag(receiver, await postsOf(db, stack.tables.posts, users.spread.userId), Date.now() + 60_000) };
  } finally {
    await receiver.stop();
  }
  const webhooks = spread.webhooks!;
  return {
    results: { publishSpread: spread },
    budgets: [
      budget('publish lag p99, 200 over 2 min', spread.lagMs.p99, BUDGETS.publishLagP99Ms, 'ms'),
      budget('webhook lag p99, 200 over 2 min', webhooks.lagMs.p99, BUDGETS.webhookLagP99Ms, 'ms'),
    ],
    report: [...lagReport('200 posts over two minutes', spread), ...webhookLagReport(webhooks)],
  };
}

async function spreadLoad(stack: RunningStack, db: DynamoDBClient, user: BenchUser): Promise<LagFigures> {
  // 200 posts, one every 600 ms over two minutes (so every sub-second offset occurs), alternating platforms.
  const first = Date.now() + 8_000;
  const creates = Array.from({ length: 200 }, (_, index) => () =>
    createPosts(stack, user, {
      accounts: [user.accountIds[index % user.accountIds.length]],
      text: `Spread ${index} ${randomUUID()}`,
      scheduledFor: new Date(first + index * 600).toISOString(),
    }),
  );
  await inParallel(creates, 4);
  log(`spread: 200 posts due from ${new Date(first).toISOString()} over 120 s`);
  await waitForOutcomes(db, stack.tables.posts, user.userId, 200, first + 120_000 + 60_000);
  return lagFigures(await postsOf(db, stack.tables.posts, user.userId));
}
