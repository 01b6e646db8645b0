/**
 * Deletion queue consumer: deletes the live post of a post deleted with deleteFromPlatform=true
 * (lib/use-cases/delete-from-platform.ts). Records are handled one after the other by Powertools'
 * batch processor; transient platform failures are reported in `batchItemFailures`, so SQS retries
 * them (and parks them in the dead-letter queue after its maxReceiveCount); everything else is final.
 * It sends to no queue and reads no media.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { atColdStart } from '../lib/cold-start.js';
import { parsePlatformDeletionMessage } from '../lib/dispatch/messages.js';
import { logger } from '../lib/observability.js';
import { linkedinClientFromEnv } from '../lib/platforms/linkedin-client.js';
import { xClientFromEnv } from '../lib/platforms/x-client.js';
import { DynamoDbAccountStore } from '../lib/store/dynamodb-account-store.js';
import { DynamoDbPublishState } from '../lib/store/dynamodb-publish-state.js';
import { tokenCipherFromEnv } from '../lib/store/token-cipher.js';
import { AccessTokens } from '../lib/use-cases/access-tokens.js';
import { DeleteFromPlatform } from '../lib/use-cases/delete-from-platform.js';
import { systemClock } from '../lib/use-cases/ports/clock.js';

const processor = new BatchProcessor(EventType.SQS);

const deleteFromPlatform = atColdStart(() => {
  const accounts = new DynamoDbAccountStore();
  return new DeleteFromPlatform({
    state: new DynamoDbPublishState(),
    accounts,
    tokens: new AccessTokens({ credentials: accounts, cipher: tokenCipherFromEnv(), clock: systemClock }),
    setTokenHealth: (accountId, health) => accounts.setTokenHealth(accountId, health),
    publishers: { x: xClientFromEnv(), linkedin: linkedinClientFromEnv() },
    clock: systemClock,
    log: logger,
  });
});

export const handler = middy<SQSEvent, SQSBatchResponse, Error, Context>().handler(async (event, context) => {
  const deleter = deleteFromPlatform();
  const handleRecord = async (record: SQSRecord): Promise<void> => {
    const message = parsePlatformDeletionMessage(record.body);
    if (!message) {
      logger.error('Dropped a message that is not a platform deletion message', { messageId: record.messageId });
      return;
    }
    try {
      const result = await deleter.execute(message.postId);
      logger.info('Platform deletion handled', { postId: message.postId, ...result });
    } catch (error) {
      logger.warn('Platform deletion failed; SQS will deliver it again', { postId: message.postId, error: error as Error });
      throw error;
    }
  };
  return processPartialResponse(event, handleRecord, processor, { context, processInParallel: false, throwOnFullBatchFailure: false });
});
