/**
 * The sandbox platforms' own record of the posts they hold, kept the way X and LinkedIn keep
 * theirs: apart from the service, and across its crashes. Without it, a kill -9 of the local stack
 * takes the only evidence of what was really published with it, and nobody can check the service
 * against the platform afterwards (npm run chaos does exactly that).
 *
 * One append-only JSON-lines journal per platform under <dir>/<platform>.jsonl: a line per post
 * created and per post deleted, written and fsync'd BEFORE the platform answers, so a post whose
 * answer left the sandbox is on disk even if everything is killed the next instant. At start the
 * journal is replayed. A kill during a write can leave a torn last line: it is skipped (the
 * platform never answered for it, as for a post lost in flight) and the next line starts afresh.
 *
 * Only posts are recorded. Uploads, used refresh tokens and the `flaky` memory stay in memory: a
 * crash loses them as a platform's in-flight state is lost to a client, and the service redoes an
 * upload and retries a 503 anyway.
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import type { SandboxPost } from './common.js';
import { figuresAt, type SandboxFigures } from './metrics.js';

type JournalLine =
  | { op: 'create'; post: Omit<SandboxPost, 'createdAt' | 'deletedAt'> & { createdAt: string } }
  | { op: 'delete'; id: string; at: string };

export class PostJournal {
  private fd: number | null;

  private constructor(
    readonly file: string,
    private readonly replayed: SandboxPost[],
  ) {
    this.fd = openSync(file, 'a');
  }

  /** Opens (or creates) `<dir>/<name>.jsonl` and replays what it holds. */
  static open(dir: string, name: string): PostJournal {
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${name}.jsonl`);
    const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
    const posts = new Map<string, SandboxPost>();
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      let entry: JournalLine;
      try {
        entry = JSON.parse(line) as JournalLine;
      } catch {
        continue; // a torn line from a kill during its write
      }
      if (entry.op === 'create') {
        posts.set(entry.post.id, { ...entry.post, createdAt: new Date(entry.post.createdAt), deletedAt: null });
      } else if (entry.op === 'delete') {
        const post = posts.get(entry.id);
        if (post && post.deletedAt === null) post.deletedAt = new Date(entry.at);
      }
    }
    const journal = new PostJournal(file, [...posts.values()]);
    // A torn last line has no newline: the next entry must not be glued onto it.
    if (text !== '' && !text.endsWith('\n')) journal.write('\n');
    return journal;
  }

  /** The posts the journal held when opened, oldest first, deletions applied. */
  posts(): SandboxPost[] {
    return this.replayed;
  }

  created(post: SandboxPost): void {
    const { createdAt, deletedAt: _deletedAt, ...rest } = post;
    this.append({ op: 'create', post: { ...rest, createdAt: createdAt.toISOString() } });
  }

  deleted(post: SandboxPost): void {
    this.append({ op: 'delete', id: post.id, at: (post.deletedAt ?? new Date()).toISOString() });
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  private append(entry: JournalLine): void {
    this.write(`${JSON.stringify(entry)}\n`);
  }

  /** Synchronous on purpose: the answer to the platform call waits until the line is durable. */
  private write(text: string): void {
    if (this.fd === null) throw new Error(`The sandbox journal ${this.file} is closed`);
    writeSync(this.fd, text);
    fsyncSync(this.fd);
  }
}

/** What the inspection endpoint shows of one post: never tokens, only what a reader of the account sees. */
interface RecordedPost {
  id: string;
  text: string;
  mediaIds: string[];
  /** Each attached media with its alt text as the platform received it (null: none), in mediaIds' order. */
  media: Array<{ id: string; altText: string | null }>;
  createdAt: string;
  deletedAt: string | null;
  /** X: the post it answers (`reply.in_reply_to_tweet_id`: a thread's part, a first comment), else null. */
  inReplyTo: string | null;
  /** How the post did at the moment of this read: what the metrics endpoints answer at that moment (metrics.ts). */
  metrics: SandboxFigures;
  /** LinkedIn: the `commentary` exactly as received (little text: escapes, hashtags, mentions). */
  commentary?: string;
}

export interface PlatformRecord {
  /**
   * Per account: what is live now, and what was deleted (deletedAt set), oldest first; and how many
   * requests its metrics endpoints answered for it (since the sandbox started: not journaled).
   */
  accounts: Record<string, { live: RecordedPost[]; deleted: RecordedPost[]; metricsReads: number }>;
}

/** Anything that can list the posts it holds: the two sandbox platforms. */
interface PostHolder {
  listPosts(accountId?: string): SandboxPost[];
  metricsReadCount(accountId: string): number;
}

function recordOf(holder: PostHolder, accountId: string | null, now: Date): PlatformRecord {
  const accounts: PlatformRecord['accounts'] = {};
  for (const post of holder.listPosts(accountId ?? undefined)) {
    const entry = (accounts[post.accountId] ??= { live: [], deleted: [], metricsReads: holder.metricsReadCount(post.accountId) });
    const view: RecordedPost = {
      id: post.id,
      text: post.text,
      mediaIds: [...post.mediaIds],
      media: post.mediaIds.map((mediaId) => {
        const described = post.details.mediaAltText;
        const altText = typeof described === 'object' && described !== null ? (described as Record<string, unknown>)[mediaId] : undefined;
        return { id: mediaId, altText: typeof altText === 'string' ? altText : null };
      }),
      createdAt: post.createdAt.toISOString(),
      deletedAt: post.deletedAt === null ? null : post.deletedAt.toISOString(),
      // A reader sees what a reply answers; the crash test checks a thread's order by it.
      inReplyTo: typeof post.details.in_reply_to_tweet_id === 'string' ? post.details.in_reply_to_tweet_id : null,
      metrics: figuresAt(post.id, post.createdAt, now),
      ...(typeof post.details.commentary === 'string' ? { commentary: post.details.commentary } : {}),
    };
    (post.deletedAt === null ? entry.live : entry.deleted).push(view);
  }
  return { accounts };
}

export const RECORD_PATH = '/sandbox/record';

/**
 * GET /sandbox/record[?accountId=...]: read-only, what each platform holds per account. Anything
 * but GET/HEAD is 405, so the record can only change through the platforms' own APIs.
 */
export function answerRecord(
  res: ServerResponse,
  method: string,
  query: URLSearchParams,
  platforms: { x: PostHolder; linkedin: PostHolder },
): void {
  if (method !== 'GET' && method !== 'HEAD') {
    res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ message: 'The sandbox record is read-only' }));
    return;
  }
  const accountId = query.get('accountId');
  // One moment for the whole answer, so its figures are exactly what the platforms answered then.
  const now = new Date();
  const body = JSON.stringify({ at: now.toISOString(), x: recordOf(platforms.x, accountId, now), linkedin: recordOf(platforms.linkedin, accountId, now) });
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(Buffer.byteLength(body)), 'Cache-Control': 'no-store' });
  res.end(method === 'HEAD' ? undefined : body);
}
