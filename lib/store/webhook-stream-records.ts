/**
 * DynamoDB Streams records (as Lambda delivers them, and as the local stream poller builds them)
 * read into the router's changes: a post item, or an account or media item of the directory, old and new
 * image, each read through the same schema as the store reads it. Other items (credentials,
 * keys, workspaces, ...) are not changes the router cares about.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import type { PostImage } from '../domain/webhooks.js';
import type { Change } from '../use-cases/webhooks/route-changes.js';
import { toAccount } from './dynamodb-account-store.js';
import { toMediaItem } from './dynamodb-media-store.js';
import { itemToPost } from './post-item.js';

type Image = Record<string, unknown>;

function image(raw: unknown): Image | null {
  if (typeof raw !== 'object' || raw === null) return null;
  return unmarshall(raw as Record<string, AttributeValue>);
}

function postImage(item: Image | null): PostImage | null {
  if (item === null) return null;
  return { post: itemToPost(item), platformDeletedAt: typeof item.platformDeletedAt === 'string' ? item.platformDeletedAt : null };
}

/** The table a record's stream belongs to: `arn:aws:dynamodb:<region>:<account>:table/<name>/stream/<label>`. */
function tableOf(eventSourceArn: string | undefined): string {
  return /:table\/([^/]+)\/stream\//.exec(eventSourceArn ?? '')?.[1] ?? 'unknown';
}

export function changeFromStreamRecord(record: DynamoDBRecord): Change | null {
  const data = record.dynamodb;
  if (!data?.SequenceNumber || !data.Keys) return null;
  const keys = unmarshall(data.Keys as Record<string, AttributeValue>);
  const at = new Date((data.ApproximateCreationDateTime ?? 0) * 1000).toISOString();
  const base = { source: tableOf(record.eventSourceARN), sequenceNumber: data.SequenceNumber, at };
  const previous = image(data.OldImage);
  const next = image(data.NewImage);
  if (typeof keys.id === 'string' && keys.pk === undefined) {
    return { ...base, kind: 'post', previous: postImage(previous), next: postImage(next) };
  }
  if (typeof keys.pk === 'string' && keys.pk.startsWith('ACCOUNT#') && keys.sk === 'ACCOUNT') {
    return { ...base, kind: 'account', previous: previous === null ? null : toAccount(previous), next: next === null ? null : toAccount(next) };
  }
  if (typeof keys.pk === 'string' && keys.pk.startsWith('MEDIA#') && keys.sk === 'MEDIA') {
    return { ...base, kind: 'media', previous: previous === null ? null : toMediaItem(previous), next: next === null ? null : toMediaItem(next) };
  }
  return null;
}
