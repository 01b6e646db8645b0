/**
 * The webhook router's stream filters as the local poller applies them (lib/store/webhook-stream-filters.ts):
 * the same decisions Lambda's event filtering makes with these patterns on AWS.
 */
import { describe, expect, it } from 'vitest';
import { matchesStreamFilter, WEBHOOK_STREAM_FILTERS } from '../../lib/store/webhook-stream-filters.js';

const passes = (table: keyof typeof WEBHOOK_STREAM_FILTERS, record: unknown): boolean => WEBHOOK_STREAM_FILTERS[table].some((pattern) => matchesStreamFilter(record, pattern));
const post = (image: Record<string, unknown> | undefined) => ({ eventName: 'MODIFY', dynamodb: { Keys: { id: { S: 'post_1' } }, ...(image ? { NewImage: image } : {}) } });

describe('webhook stream filters', () => {
  it('pass a post whose new image is published or failed, or deleted on its platform', () => {
    expect(passes('posts', post({ status: { S: 'published' } }))).toBe(true);
    expect(passes('posts', post({ status: { S: 'failed' } }))).toBe(true);
    expect(passes('posts', post({ status: { S: 'published' }, platformDeletedAt: { S: '2026-11-25T10:00:00Z' } }))).toBe(true);
  });

  it('drop the writes of a post on its way (created, claimed, leased) and its removal', () => {
    expect(passes('posts', post({ status: { S: 'scheduled' } }))).toBe(false);
    expect(passes('posts', post({ status: { S: 'publishing' }, leaseUntil: { N: '1' } }))).toBe(false);
    expect(passes('posts', post(undefined))).toBe(false);
    // A value of another type is not the string the pattern names.
    expect(passes('posts', post({ status: { N: 'published' } }))).toBe(false);
  });

  it('pass account items of the directory only, removals included', () => {
    expect(passes('directory', { eventName: 'REMOVE', dynamodb: { Keys: { pk: { S: 'ACCOUNT#acct_1' }, sk: { S: 'ACCOUNT' } } } })).toBe(true);
    expect(passes('directory', { eventName: 'INSERT', dynamodb: { Keys: { pk: { S: 'USER#usr_1' }, sk: { S: 'KEY#1' } } } })).toBe(false);
  });
});
