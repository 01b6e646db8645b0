/**
 * The process's DynamoDB client (lib/store/dynamo-client.ts) runs without the SDK's logger
 * middleware, which masked and copied every request and answer for a logger that discards them.
 * (Every store and HTTP test sends its requests through this client.)
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { dynamoDbClient } from '../../lib/store/dynamo-client.js';

const hasLogger = (client: DynamoDBClient): boolean => client.middlewareStack.identify().some((entry) => entry.startsWith('loggerMiddleware'));

describe('the DynamoDB client', () => {
  it('has no logger middleware (a default client has one)', () => {
    expect(hasLogger(new DynamoDBClient({ region: 'us-east-1' }))).toBe(true);
    expect(hasLogger(dynamoDbClient)).toBe(false);
  });
});
