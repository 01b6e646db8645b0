/**
 * Post metrics across kills (issue 34: "surviving kill -9: a collection due and not done is done
 * after the restart"). Each cycle makes the first collection of the posts the cycles before it
 * published on its `ok` accounts due now (their byMetricsDue entry moved to this instant: setup,
 * as the bench's metrics phase does), just before its burst and its kill, so the collector (every
 * 5 s in the stack) is often claiming, reading the platform or recording when the group dies.
 * After the last cycle each of them must show its metrics through the API, collected once:
 * GET /posts/{id}/metrics with one history entry. A collection killed after its claim is done
 * again once the claim runs out (2 minutes); one recorded twice would show two entries.
 * The `flaky` accounts are left out: their 503s postpone a collection by 5 minutes, by design.
 */
import { ConditionalCheckFailedException, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { setTimeout as sleep } from 'node:timers/promises';
import { metricsDueKeys } from '../lib/store/post-item.js';
import { dynamoDbClientFor } from '../local/dynamodb-local.js';
import type { StackInfo } from '../local/stack.js';
import { Api } from './burst.js';

export interface TrackedMetrics {
  postId: string;
  apiKey: string;
  cycle: number;
}

export interface MetricsCheck {
  /** Posts whose first collection a cycle made due. */
  tracked: number;
  collected: number;
  /** Without metrics by the deadline. */
  missing: number;
  /** Collected more than once for the one point that was due. */
  collectedTwice: number;
  problems: string[];
}

/**
 * Makes the first collection of these published posts due now; a post already collected (no entry
 * on its item any more) is left as it is. The posts made due, to be checked after the last cycle.
 */
export async function makeMetricsDue(info: StackInfo, posts: readonly TrackedMetrics[]): Promise<TrackedMetrics[]> {
  const db = dynamoDbClientFor(info.dynamodbEndpoint, { retries: 'standard' });
  const due: TrackedMetrics[] = [];
  try {
    const now = new Date();
    for (const post of posts) {
      const keys = metricsDueKeys(post.postId, now);
      try {
        await db.send(
          new UpdateItemCommand({
            TableName: info.tables.posts,
            Key: { id: { S: post.postId } },
            UpdateExpression: 'SET metricsDuePk = :pk, metricsDueSk = :sk',
            ConditionExpression: 'attribute_exists(metricsDuePk) AND attribute_not_exists(metricsClaimToken)',
            ExpressionAttributeValues: { ':pk': { S: keys.metricsDuePk }, ':sk': { S: keys.metricsDueSk } },
          }),
        );
        due.push(post);
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    }
  } finally {
    db.destroy();
  }
  return due;
}

/** Every tracked post collected once by `deadline`, as the API shows it. */
export async function checkMetrics(baseUrl: string, tracked: readonly TrackedMetrics[], deadline: number): Promise<MetricsCheck> {
  const check: MetricsCheck = { tracked: tracked.length, collected: 0, missing: 0, collectedTwice: 0, problems: [] };
  for (const post of tracked) {
    const api = new Api(baseUrl, post.apiKey);
    let body: Record<string, unknown> = {};
    for (;;) {
      const answer = await api.request('GET', `/posts/${post.postId}/metrics`);
      body = answer.body;
      if ((answer.status === 200 && body.metrics !== null) || Date.now() > deadline) break;
      await sleep(2000);
    }
    const history = Array.isArray(body.history) ? body.history.length : 0;
    if (body.metrics === null || body.metrics === undefined) {
      check.missing += 1;
      check.problems.push(`post ${post.postId} (cycle ${post.cycle}): no metrics by the deadline`);
    } else {
      check.collected += 1;
      if (history > 1) {
        check.collectedTwice += 1;
        check.problems.push(`post ${post.postId} (cycle ${post.cycle}): ${history} collections for one point due`);
      }
    }
  }
  return check;
}
