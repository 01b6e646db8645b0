/**
 * Plumbing shared by the sandbox platforms (x.ts, linkedin.ts): reading requests, answering JSON,
 * telling which account a sandbox token belongs to, ids of the platforms' real shapes, the
 * one-shot faults tests inject to reproduce a lost answer, and the state and test inspection both
 * keep the same way (SandboxPlatform).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes, randomInt } from 'node:crypto';
import type { SandboxBehaviour } from '../../lib/domain/model.js';
import { parseSandboxToken, type ParsedSandboxToken } from '../../lib/domain/sandbox-tokens.js';
import type { PostJournal } from './record.js';

export type AccountBehaviour = (accountId: string) => Promise<SandboxBehaviour>;

/**
 * Faults a test can arm for the next create of one account:
 *   drop_after_create   the post is created, then the connection is cut without an answer
 *   hang_after_create   the post is created and no answer ever comes (the client times out)
 *   drop_before_create  the connection is cut and nothing is created
 *   rate_limited        429 with the platform's rate-limit headers
 *   slow_rate_limited   the same 429, SLOW_CREATE_MS late: nothing is created (a window for a
 *                       test to act while a create that will be refused is under way)
 *   slow_create         the post is created and the answer comes SLOW_CREATE_MS later (a window
 *                       for a test to act while the post is being sent)
 *   gateway_after_create  the post is created, then a gateway answers 504 (as if it had timed out)
 *   refuse_lookup       the next lookup of the account's posts is refused 403 (an app without the
 *                       scope to read them): the platform cannot tell what was posted
 *   metrics_rate_limited  the next metrics request of the account (X's post lookup, LinkedIn's
 *                       analytics) is answered 429 with the platform's rate-limit headers
 */
export type SandboxFault =
  | 'drop_after_create'
  | 'hang_after_create'
  | 'drop_before_create'
  | 'rate_limited'
  | 'slow_rate_limited'
  | 'slow_create'
  | 'gateway_after_create'
  | 'refuse_lookup'
  | 'metrics_rate_limited';

export const SLOW_CREATE_MS = 1500;

export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export class FaultBook {
  private readonly armed = new Map<string, SandboxFault[]>();

  arm(accountId: string, fault: SandboxFault): void {
    const list = this.armed.get(accountId) ?? [];
    list.push(fault);
    this.armed.set(accountId, list);
  }

  /** The next armed fault, only when it is `fault` (a lookup takes nothing meant for a create). */
  takeIf(accountId: string, fault: SandboxFault): boolean {
    if (this.armed.get(accountId)?.[0] !== fault) return false;
    this.take(accountId);
    return true;
  }

  take(accountId: string): SandboxFault | null {
    const list = this.armed.get(accountId);
    const fault = list?.shift() ?? null;
    if (list && list.length === 0) this.armed.delete(accountId);
    return fault;
  }
}

export class BodyTooLargeError extends Error {
  readonly code = 'body_too_large';
  constructor() {
    super('Request body too large');
    this.name = 'BodyTooLargeError';
  }
}

export async function readBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limitBytes) throw new BodyTooLargeError();
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, {
    ...(text === '' ? {} : { 'Content-Type': 'application/json; charset=utf-8' }),
    'Content-Length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

/** Parses a multipart/form-data body with the platform's own parser (WHATWG Response.formData). */
export async function parseMultipart(req: IncomingMessage, body: Buffer): Promise<FormData | null> {
  const type = req.headers['content-type'];
  if (typeof type !== 'string' || !type.startsWith('multipart/form-data')) return null;
  try {
    return await new Response(body, { headers: { 'content-type': type } }).formData();
  } catch {
    return null;
  }
}

export function parseJsonBody(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The account of a `Bearer sandbox.<accountId>.<random>` header, or null. */
export function bearerAccount(req: IncomingMessage): string | null {
  return bearerToken(req)?.accountId ?? null;
}

/** The access token of the request's Authorization header, parsed; null when there is none. */
function bearerToken(req: IncomingMessage): ParsedSandboxToken | null {
  const header = req.headers.authorization;
  if (typeof header !== 'string') return null;
  const match = /^Bearer (\S+)$/.exec(header);
  if (!match?.[1]) return null;
  const parsed = parseSandboxToken(match[1]);
  return parsed?.kind === 'access' ? parsed : null;
}

export function refreshTokenAccount(token: string): string | null {
  const parsed = parseSandboxToken(token);
  return parsed?.kind === 'refresh' ? parsed.accountId : null;
}

const X_EPOCH_MS = 1288834974657n;
let sequence = 0n;

/**
 * A 19-digit id shaped like X's (and LinkedIn's activity ids): milliseconds since X's epoch in the
 * high bits, a sequence and randomness in the low 22, so ids grow with time like the real ones.
 */
export function snowflakeId(): string {
  sequence = (sequence + 1n) & 0xfffn;
  const id = ((BigInt(Date.now()) - X_EPOCH_MS) << 22n) | (BigInt(randomInt(0, 1024)) << 12n) | sequence;
  return id.toString().padStart(19, '1');
}

/** LinkedIn's digital-asset ids look like `C4E10AQ...`: base64url-ish, 22+ characters. */
export function assetId(): string {
  return `C5${randomBytes(15).toString('base64url').replace(/[-_]/g, 'A')}`;
}

export function unixSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}

/** What a test sees of a post the sandbox holds. */
export interface SandboxPost {
  id: string;
  accountId: string;
  /** The text a reader sees (LinkedIn: unescaped and, like LinkedIn, cut at an unescaped reserved character). */
  text: string;
  mediaIds: string[];
  createdAt: Date;
  deletedAt: Date | null;
  /** Everything else the create carried (X: community_id, share_with_followers; LinkedIn: the raw body). */
  details: Record<string, unknown>;
}

/**
 * What both sandbox platforms keep alike: the posts they hold, create attempts, the `flaky`
 * behaviour's memory, refresh count, armed faults and the answers held open by
 * `hang_after_create`, with the inspection helpers tests read them through. Each platform adds
 * its own routes, validation and error bodies.
 */
export abstract class SandboxPlatform {
  protected readonly posts = new Map<string, SandboxPost>();
  /**
   * The same posts by account, oldest first: X's duplicate check reads an account's posts on every
   * create, and filtering every post the sandbox holds made each create cost in proportion to all
   * of them (thousands in a bench run, on the Node thread the service's own worker shares locally).
   */
  private readonly byAccount = new Map<string, SandboxPost[]>();
  private readonly createAttempts = new Map<string, number>();
  private readonly metricsReads = new Map<string, number>();
  private readonly flakySeen = new Set<string>();
  private refreshes = 0;
  readonly faults = new FaultBook();
  /** Sockets held open by `hang_after_create`, released at stop. */
  readonly hanging = new Set<ServerResponse>();

  /** With a journal (record.ts), the posts survive a restart or a kill of the sandbox. */
  constructor(
    protected readonly accountBehaviour: AccountBehaviour,
    private readonly journal: PostJournal | null = null,
  ) {
    for (const post of journal?.posts() ?? []) this.hold(post);
  }

  private hold(post: SandboxPost): void {
    this.posts.set(post.id, post);
    const held = this.byAccount.get(post.accountId);
    if (held) held.push(post);
    else this.byAccount.set(post.accountId, [post]);
  }

  // ---- inspection helpers for tests ----

  /** Every post created for the account (or all accounts), deleted ones included, oldest first. */
  listPosts(accountId?: string): SandboxPost[] {
    return accountId === undefined ? [...this.posts.values()] : [...(this.byAccount.get(accountId) ?? [])];
  }

  /** How many posts were actually created for the account: the figure that proves "never sent twice". */
  createCount(accountId: string): number {
    return this.listPosts(accountId).length;
  }

  /** Create requests received for the account, whatever the answer. */
  createAttemptCount(accountId: string): number {
    return this.createAttempts.get(accountId) ?? 0;
  }

  /** Requests to the platform's metrics endpoints for the account, whatever the answer (the bench's requests per 1,000 posts collected). */
  metricsReadCount(accountId: string): number {
    return this.metricsReads.get(accountId) ?? 0;
  }

  refreshCount(): number {
    return this.refreshes;
  }

  injectFault(accountId: string, fault: SandboxFault): void {
    this.faults.arm(accountId, fault);
  }

  // ---- for the platforms ----

  protected countMetricsRead(accountId: string): void {
    this.metricsReads.set(accountId, this.metricsReadCount(accountId) + 1);
  }

  /**
   * The account a request acts for and how it behaves, or null once the request was answered 401:
   * no sandbox bearer token, or an `expired` account (every call refused, its body read first).
   */
  protected async authenticate(
    req: IncomingMessage,
    res: ServerResponse,
    refusals: { invalidToken: unknown; expired: unknown; bodyLimitBytes: number; headers?: Record<string, string>; refuseEndedTokens?: boolean },
  ): Promise<{ accountId: string; behaviour: SandboxBehaviour } | null> {
    const token = bearerToken(req);
    if (token === null) {
      sendJson(res, 401, refusals.invalidToken, refusals.headers);
      return null;
    }
    const { accountId } = token;
    const behaviour = await this.accountBehaviour(accountId);
    const ended = refusals.refuseEndedTokens === true && token.endsAt !== undefined && token.endsAt.getTime() <= Date.now();
    if (behaviour === 'expired' || ended) {
      await readBody(req, refusals.bodyLimitBytes);
      sendJson(res, 401, refusals.expired, refusals.headers);
      return null;
    }
    return { accountId, behaviour };
  }

  /** Holds a created post; journaled (and fsync'd) before the caller answers. */
  protected storePost(post: SandboxPost): void {
    this.hold(post);
    this.journal?.created(post);
  }

  protected markDeleted(post: SandboxPost): void {
    post.deletedAt = new Date();
    this.journal?.deleted(post);
  }

  protected countCreateAttempt(accountId: string): void {
    this.createAttempts.set(accountId, this.createAttemptCount(accountId) + 1);
  }

  protected countRefresh(): void {
    this.refreshes++;
  }

  /** `flaky`: true the first time this account sends this post (the caller answers 503), false after. */
  protected failsOnce(accountId: string, content: string): boolean {
    const key = `${accountId}\n${content}`;
    if (this.flakySeen.has(key)) return false;
    this.flakySeen.add(key);
    return true;
  }

  /**
   * After the post is stored, the armed fault decides the answer: cut the connection, hold it
   * open for good, or send it SLOW_CREATE_MS late. False when no answer is to be sent.
   */
  protected async answerAfterCreate(req: IncomingMessage, res: ServerResponse, fault: SandboxFault | null): Promise<boolean> {
    if (fault === 'drop_after_create') {
      req.socket.destroy();
      return false;
    }
    if (fault === 'hang_after_create') {
      this.hanging.add(res);
      return false;
    }
    if (fault === 'gateway_after_create') {
      sendJson(res, 504, { status: 504, title: 'Gateway Timeout', message: 'Gateway Timeout' });
      return false;
    }
    if (fault === 'slow_create') await pause(SLOW_CREATE_MS);
    return true;
  }
}
