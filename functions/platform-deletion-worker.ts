/**
 * Deletion queue consumer: deletes the live post of a post deleted with deleteFromPlatform=true
 * (lib/use-cases/delete-from-platform.ts). Transient platform failures are reported in
 * `batchItemFailures`, so SQS retries them (and parks them in the dead-letter queue after its
 * maxReceiveCount); everything else is final.
 */
import middy from '@middy/core';
import type { Context, SQSBatchItemFailure, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { parsePlatformDeletionMessage } from '../lib/dispatch/messages.js';
import { logger } from '../lib/observability.js';
import { systemClock } from '../lib/use-cases/ports/clock.js';
import { DeleteFromPlatform } from '../lib/use-cases/delete-from-platform.js';
import { platformDeletionWorkerDependencies } from '../lib/worker-dependencies.js';

let deleteFromPlatform: DeleteFromPlatform | undefined;

function build(): DeleteFromPlatform {
  const deps = platformDeletionWorkerDependencies();
  return new DeleteFromPlatform({
    state: deps.state,
    accounts: deps.directory.accounts,
    tokens: deps.tokens,
    setTokenHealth: (accountId, health) => deps.directory.accounts.setTokenHealth(accountId, health),
    publishers: deps.publishers,
    clock: systemClock,
    log: deps.log,
  });
}

export const handler = middy<SQSEvent, SQSBatchResponse, Error, Context>().handler(async (event) => {
  deleteFromPlatform ??= build();
  const failures: SQSBatchItemFailure[] = [];
  for (const record of event.Records) {
    const message = parsePlatformDeletionMessage(record.body);
    if (!message) {
      logger.error('Dropped a message that is not a platform deletion message', { messageId: record.messageId });
      continue;
    }
    try {
      const result = await deleteFromPlatform.execute(message.postId);
      logger.info('Platform deletion handled', { postId: message.postId, ...result });
    } catch (error) {
      logger.warn('Platform deletion failed; SQS will deliver it again', { postId: message.postId, error: error as Error });
      failures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures: failures };
});
