/**
 * GetRecords of DynamoDB Local's Streams API, read as plain JSON, for the local stream poller
 * (stream-router.ts), which stands in for Lambda's event source mapping.
 *
 * Why not the SDK's DynamoDBStreamsClient: the poller reads every write of the posts table (a
 * burst of 500 posts is some 2,500 records, each with both images), on the same single Node thread
 * that sends the burst's creates. The SDK's schema-driven deserializer spends several times the CPU
 * per record that JSON.parse does (docs/performance.md, "Figures behind the code"); on AWS the
 * mapping reads the stream outside our functions, so this is CPU the local stack spends only
 * because it emulates it.
 *
 * The wire format is already what Lambda hands a function: attribute values in DynamoDB JSON and
 * the record's time in epoch seconds. Two differences are mended here: the stream's ARN and region
 * are added, and an empty map, which DynamoDB Local writes as `{}` with no type at all, gets its
 * `{"M": {}}` back, at any depth, as in Lambda's event (a post's `options` is often empty).
 *
 * DynamoDB Local does not check request signatures (it only needs an Authorization header that
 * names a key), so the request carries a fixed one.
 */
import type { DynamoDBRecord } from 'aws-lambda';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './local-aws.js';

/** An error DynamoDB Local answered, named as the SDK names it (e.g. TrimmedDataAccessException). */
export class StreamReadError extends Error {
  readonly code = 'stream_read_failed';
  constructor(
    name: string,
    message: string,
    readonly statusCode: number,
  ) {
    super(message);
    this.name = name;
  }
}

/** One record as GetRecords returns it on the wire. */
interface WireRecord {
  eventID?: string;
  eventName?: string;
  eventVersion?: string;
  dynamodb?: {
    ApproximateCreationDateTime?: number;
    Keys?: Record<string, unknown>;
    NewImage?: Record<string, unknown>;
    OldImage?: Record<string, unknown>;
    SequenceNumber?: string;
    SizeBytes?: number;
    StreamViewType?: string;
  };
}

const AUTHORIZATION = `AWS4-HMAC-SHA256 Credential=${LOCAL_CREDENTIALS.accessKeyId}/20000101/${LOCAL_REGION}/dynamodb/aws4_request, SignedHeaders=host, Signature=0`;

/**
 * An empty map attribute comes back from DynamoDB Local as `{}` (no type), where Lambda's event
 * has `{"M": {}}`; put the type back, at any depth, so the router reads exactly what it reads on AWS.
 */
export function restoreEmptyMaps(image: Record<string, unknown>): Record<string, unknown> {
  const fix = (value: unknown): unknown => {
    if (typeof value !== 'object' || value === null) return value;
    const attribute = value as Record<string, unknown>;
    if (Object.keys(attribute).length === 0) return { M: {} };
    if (attribute.M && typeof attribute.M === 'object') return { M: restoreEmptyMaps(attribute.M as Record<string, unknown>) };
    if (Array.isArray(attribute.L)) return { L: attribute.L.map(fix) };
    return attribute;
  };
  return Object.fromEntries(Object.entries(image).map(([name, value]) => [name, fix(value)]));
}

/** A record as Lambda delivers it. */
export function lambdaRecordFromWire(record: WireRecord, streamArn: string): DynamoDBRecord {
  const data = record.dynamodb ?? {};
  const created = data.ApproximateCreationDateTime;
  return {
    eventID: record.eventID ?? '',
    eventName: record.eventName as DynamoDBRecord['eventName'],
    eventVersion: record.eventVersion ?? '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: LOCAL_REGION,
    eventSourceARN: streamArn,
    dynamodb: {
      ...(data.Keys ? { Keys: data.Keys as never } : {}),
      ...(data.NewImage ? { NewImage: restoreEmptyMaps(data.NewImage) as never } : {}),
      ...(data.OldImage ? { OldImage: restoreEmptyMaps(data.OldImage) as never } : {}),
      ...(data.SequenceNumber ? { SequenceNumber: data.SequenceNumber } : {}),
      ...(data.SizeBytes === undefined ? {} : { SizeBytes: data.SizeBytes }),
      ...(data.StreamViewType ? { StreamViewType: data.StreamViewType as never } : {}),
      ApproximateCreationDateTime: typeof created === 'number' ? Math.floor(created) : Math.floor(Date.now() / 1000),
    },
  };
}

/**
 * Up to `limit` records from a shard iterator, as Lambda would hand them over, and the iterator to
 * read on from (absent: the shard is closed and read to its end).
 */
export async function getStreamRecords(
  endpoint: string,
  input: { shardIterator: string; limit: number; streamArn: string; signal?: AbortSignal },
): Promise<{ records: DynamoDBRecord[]; nextShardIterator: string | undefined }> {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDBStreams_20120810.GetRecords', authorization: AUTHORIZATION },
    body: JSON.stringify({ ShardIterator: input.shardIterator, Limit: input.limit }),
    ...(input.signal ? { signal: input.signal } : {}),
  });
  const body = (await response.json().catch(() => ({}))) as { Records?: WireRecord[]; NextShardIterator?: string; __type?: string; message?: string; Message?: string };
  if (!response.ok) {
    const name = (body.__type ?? 'StreamReadError').split('#').pop() ?? 'StreamReadError';
    throw new StreamReadError(name, body.message ?? body.Message ?? `GetRecords answered ${response.status}`, response.status);
  }
  return { records: (body.Records ?? []).map((record) => lambdaRecordFromWire(record, input.streamArn)), nextShardIterator: body.NextShardIterator };
}
