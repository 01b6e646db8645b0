/**
 * The one DynamoDB client of a process, built at module scope so a Lambda reuses its connections
 * across invocations. No endpoint is configured here on purpose: the SDK reads
 * AWS_ENDPOINT_URL_DYNAMODB itself, which the local stack and tests set to DynamoDB Local, and
 * which is unset on AWS.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { meterSdkClient } from './sdk-metering.js';

/**
 * The SDK's default is 50 sockets per client. The publish worker holds a second's group of posts
 * (up to 250 in one invocation, lib/use-cases/publish-batch.ts) and each waits on its own write at
 * the due second, so 50 sockets queued the rest behind them; locally, where every handler shares
 * this process, the SDK warned of over 1,000 requests queued in a burst. Connections are opened
 * only as needed, so a function that makes one request at a time still opens one.
 */
const MAX_SOCKETS = 256;

export const dynamoDbClient = new DynamoDBClient({
  requestHandler: { httpAgent: { keepAlive: true, maxSockets: MAX_SOCKETS }, httpsAgent: { keepAlive: true, maxSockets: MAX_SOCKETS } },
});
// The SDK's logger middleware copies every request and answer, walking each through its schema
// to mask sensitive fields, to hand the copy to the client's logger, which is the SDK's no-op one
// here (our logs are Powertools'): it does that work for every request all the same, for nothing
// (its share of a burst: docs/performance.md, "Figures behind the code").
dynamoDbClient.middlewareStack.remove('loggerMiddleware');
// Off unless SDK_METERING=1 (the bench's local stack): counts requests and capacity units.
meterSdkClient(dynamoDbClient, 'dynamodb');

export const documentClient = DynamoDBDocumentClient.from(dynamoDbClient, {
  // Optional fields (e.g. Account.sandbox) are simply absent from the item rather than an error.
  marshallOptions: { removeUndefinedValues: true },
});
