/**
 * The local stream poller's GetRecords as plain JSON (local/stream-records.ts) against DynamoDB
 * Local's real stream: the records are what Lambda hands a function (names, order, images with
 * their empty maps typed, time in whole epoch seconds, the stream's ARN), the images are the ones
 * the SDK's client reads, and an error is named as the SDK would name it.
 */
import { randomUUID } from 'node:crypto';
import { CreateTableCommand, DeleteItemCommand, DeleteTableCommand, DescribeTableCommand, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { dynamoDbClientFor } from '../../local/dynamodb-local.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/local-aws.js';
import { getStreamRecords, restoreEmptyMaps, StreamReadError } from '../../local/stream-records.js';

const { dynamodbEndpoint } = inject('localAws');
const db = dynamoDbClientFor(dynamodbEndpoint);
const streams = new DynamoDBStreamsClient({ endpoint: dynamodbEndpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, maxAttempts: 1 });
const table = `stream-records-${randomUUID()}`;
let streamArn = '';

async function iterator(): Promise<string> {
  const shards = (await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }))).StreamDescription?.Shards ?? [];
  const out = await streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shards[0]?.ShardId ?? '', ShardIteratorType: 'TRIM_HORIZON' }));
  return out.ShardIterator ?? '';
}

beforeAll(async () => {
  await db.send(
    new CreateTableCommand({
      TableName: table,
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
      StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
    }),
  );
  streamArn = (await db.send(new DescribeTableCommand({ TableName: table }))).Table?.LatestStreamArn ?? '';
  const nested = { M: { empty: { M: {} }, list: { L: [{ M: {} }, { S: 'x' }] } } };
  await db.send(new PutItemCommand({ TableName: table, Item: { id: { S: 'a' }, options: { M: {} }, nested, n: { N: '1' } } }));
  await db.send(new UpdateItemCommand({ TableName: table, Key: { id: { S: 'a' } }, UpdateExpression: 'SET n = :two, flag = :yes', ExpressionAttributeValues: { ':two': { N: '2' }, ':yes': { BOOL: true } } }));
  await db.send(new DeleteItemCommand({ TableName: table, Key: { id: { S: 'a' } } }));
});

afterAll(async () => {
  await db.send(new DeleteTableCommand({ TableName: table })).catch(() => undefined);
  db.destroy();
  streams.destroy();
});

describe('GetRecords as plain JSON', () => {
  it('gives the records as Lambda does: in order, typed empty maps, whole seconds, the stream ARN', async () => {
    const before = Math.floor(Date.now() / 1000) - 60;
    const { records, nextShardIterator } = await getStreamRecords(dynamodbEndpoint, { shardIterator: await iterator(), limit: 100, streamArn });
    expect(records.map((record) => record.eventName)).toEqual(['INSERT', 'MODIFY', 'REMOVE']);
    expect(nextShardIterator).toEqual(expect.any(String));
    for (const record of records) {
      expect(record).toMatchObject({ eventSource: 'aws:dynamodb', awsRegion: LOCAL_REGION, eventSourceARN: streamArn, eventVersion: '1.1' });
      expect(record.dynamodb?.Keys).toEqual({ id: { S: 'a' } });
      expect(Number.isInteger(record.dynamodb?.ApproximateCreationDateTime)).toBe(true);
      expect(record.dynamodb?.ApproximateCreationDateTime).toBeGreaterThan(before);
    }
    const [insert, modify, remove] = records;
    expect(insert?.dynamodb?.NewImage).toEqual({
      id: { S: 'a' },
      options: { M: {} },
      nested: { M: { empty: { M: {} }, list: { L: [{ M: {} }, { S: 'x' }] } } },
      n: { N: '1' },
    });
    expect(insert?.dynamodb?.OldImage).toBeUndefined();
    expect(modify?.dynamodb?.OldImage?.n).toEqual({ N: '1' });
    expect(modify?.dynamodb?.NewImage).toMatchObject({ n: { N: '2' }, flag: { BOOL: true }, options: { M: {} } });
    expect(remove?.dynamodb?.NewImage).toBeUndefined();
    expect(remove?.dynamodb?.OldImage?.flag).toEqual({ BOOL: true });
    const sequence = records.map((record) => BigInt(record.dynamodb?.SequenceNumber ?? '0'));
    expect([...sequence].sort((a, b) => (a < b ? -1 : 1))).toEqual(sequence);
  });

  it('reads the same records as the SDK client, a few at a time from the iterator it returns', async () => {
    const sdk = await streams.send(new GetRecordsCommand({ ShardIterator: await iterator(), Limit: 100 }));
    const read = [];
    let shardIterator = await iterator();
    for (let round = 0; round < 3; round++) {
      const out = await getStreamRecords(dynamodbEndpoint, { shardIterator, limit: 1, streamArn });
      read.push(...out.records);
      shardIterator = out.nextShardIterator ?? '';
    }
    expect(read.map((record) => record.dynamodb?.SequenceNumber)).toEqual(sdk.Records?.map((record) => record.dynamodb?.SequenceNumber));
    expect(read.map((record) => record.eventID)).toEqual(sdk.Records?.map((record) => record.eventID));
    expect(read.map((record) => record.dynamodb?.NewImage ?? null)).toEqual(sdk.Records?.map((record) => (record.dynamodb?.NewImage ? restoreEmptyMaps(record.dynamodb.NewImage) : null)));
  });

  it('names an error as the SDK does', async () => {
    const failure = await getStreamRecords(dynamodbEndpoint, { shardIterator: 'not-an-iterator', limit: 10, streamArn }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StreamReadError);
    const sdkFailure = await streams.send(new GetRecordsCommand({ ShardIterator: 'not-an-iterator', Limit: 10 })).catch((error: unknown) => error);
    expect((failure as Error).name).toBe((sdkFailure as Error).name);
    expect((failure as StreamReadError).statusCode).toBe(400);
  });
});
