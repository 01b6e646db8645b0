/**
 * What a careful customer's server does during a crash test cycle: a burst of creates on both
 * platforms through the HTTP API (some with media, some on `flaky` accounts, some scheduled a few
 * seconds ahead), some posts cancelled or deleted with deleteFromPlatform=true while they are
 * being sent; every request whose answer was lost to the crash is sent again after the restart,
 * creates with the same Idempotency-Key and body (as the contract asks), until it gets an answer.
 * A few of the creates are X threads (`options.x.thread`), so a kill can land between two parts.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChaosCustomer } from './provision.js';

export type Rng = () => number;

/** mulberry32: a small seeded generator, so a failing cycle can be run again with CHAOS_SEED. */
export function seededRng(seed: number): Rng {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface ApiAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** The request got no answer (connection refused or cut, or timed out): its outcome is unknown. */
export class NoAnswerError extends Error {
  readonly code = 'no_answer';
}

export class Api {
  constructor(
    readonly baseUrl: string,
    private readonly apiKey: string,
  ) {}

  async request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiAnswer> {
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: { Authorization: `Bearer ${this.apiKey}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(15_000),
      });
      const text = await response.text();
      return { status: response.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
    } catch (error) {
      throw new NoAnswerError(error instanceof Error ? error.message : String(error));
    }
  }
}

export interface CreateBody {
  accounts: string[];
  text?: string;
  media?: string[];
  scheduledFor?: string;
  options?: { x: { thread: { text: string; media?: string[] }[] } };
}

export interface PlannedCreate {
  index: number;
  idempotencyKey: string;
  body: CreateBody;
  /** 'answered': got a 202; 'not_created': refused for good; 'pending': no answer yet. */
  state: 'pending' | 'answered' | 'not_created';
  detail: string;
}

export interface Deletion {
  deleteFromPlatform: boolean;
  /** cancelled: softDeleted false (never out, unit back); soft_deleted: true; unknown: an earlier lost answer did it. */
  outcome: 'pending' | 'cancelled' | 'soft_deleted' | 'unknown';
}

export interface KnownPost {
  id: string;
  accountId: string;
  platform: 'x' | 'linkedin';
  sandbox: 'ok' | 'flaky' | 'unknown';
  text: string;
  withMedia: boolean;
  /** Counted against the allowance at create (status accepted, not a draft). */
  accepted: boolean;
  /** Found only by listing the user's posts: created by a request whose answer was lost. */
  orphan: boolean;
  /** An X thread: the texts of its further parts in order (part 1 is `text`); null for any other post. */
  thread: string[] | null;
  deletion: Deletion | null;
}

export interface BurstState {
  creates: PlannedCreate[];
  posts: Map<string, KnownPost>;
  /** Deletions whose request got no answer, to send again after the restart. */
  pendingDeletes: string[];
  problems: string[];
}

/** The plan of one burst: which accounts, texts, media, schedules. */
export function planBurst(rng: Rng, customer: ChaosCustomer, tag: string, creates: number): PlannedCreate[] {
  const planned: PlannedCreate[] = [];
  const xOk = customer.accounts.find((account) => account.platform === 'x' && account.sandbox === 'ok');
  for (let index = 0; index < creates; index++) {
    const body: CreateBody = { accounts: [] };
    if (xOk && rng() < 0.08) {
      // Media and no text on X: X's duplicate check cannot catch a resend of this one.
      body.accounts = [xOk.id];
      body.media = [customer.mediaUrl];
    } else {
      const shuffled = [...customer.accounts].sort(() => rng() - 0.5);
      body.accounts = shuffled.slice(0, 1 + Math.floor(rng() * 3)).map((account) => account.id);
      body.text = `Chaos ${tag} post ${index} ${Math.floor(rng() * 1e9).toString(36)}`;
      if (rng() < 0.3) body.media = [customer.mediaUrl];
    }
    // Some a little ahead: due before, during or after the restart (their queue messages die with the stack).
    if (rng() < 0.4) body.scheduledFor = new Date(Date.now() + 2000 + Math.floor(rng() * 13_000)).toISOString();
    planned.push({ index, idempotencyKey: `chaos-${tag}-${index}`, body, state: 'pending', detail: '' });
  }
  return planned;
}

/**
 * A few X threads, placed at random among the burst's creates (numbered after them): on the `ok`
 * account, the `flaky` one or both, immediate or due 1-5 s ahead, so their parts go out while the
 * kill comes. 3 to 5 parts on `ok`; 3 with `flaky` in it, whose every part is refused once (a 503)
 * and waits out the post's growing backoff (5 s, 10 s, ...), so a longer one would not settle
 * within the recovery deadline. Each part's text is its own: X refuses a live duplicate, and the
 * check finds each part on the platform by it.
 */
export function planThreads(rng: Rng, customer: ChaosCustomer, tag: string, planned: PlannedCreate[], threads: number): PlannedCreate[] {
  const xOk = customer.accounts.find((account) => account.platform === 'x' && account.sandbox === 'ok');
  const xFlaky = customer.accounts.find((account) => account.platform === 'x' && account.sandbox === 'flaky');
  if (!xOk || !xFlaky) return planned;
  const all = [...planned];
  for (let number = 0; number < threads; number++) {
    const index = planned.length + number;
    const pick = rng();
    const accounts = pick < 0.4 ? [xOk.id] : pick < 0.75 ? [xFlaky.id] : [xOk.id, xFlaky.id];
    const parts = accounts.includes(xFlaky.id) ? 3 : 3 + Math.floor(rng() * 3);
    const nonce = Math.floor(rng() * 1e9).toString(36);
    const partText = (part: number): string => `Chaos ${tag} thread ${index} part ${part}/${parts} ${nonce}`;
    const body: CreateBody = {
      accounts,
      text: partText(1),
      options: {
        x: {
          thread: Array.from({ length: parts - 1 }, (_, at) => ({
            text: partText(at + 2),
            // Now and then a part with the image: its upload happens between two parts.
            ...(rng() < 0.25 ? { media: [customer.mediaUrl] } : {}),
          })),
        },
      },
    };
    if (rng() < 0.5) body.scheduledFor = new Date(Date.now() + 1000 + Math.floor(rng() * 4000)).toISOString();
    all.splice(Math.floor(rng() * (all.length + 1)), 0, { index, idempotencyKey: `chaos-${tag}-${index}`, body, state: 'pending', detail: '' });
  }
  return all;
}

/** The texts of a create's further thread parts, or null when it is no thread. */
export function threadOf(body: CreateBody): string[] | null {
  const parts = body.options?.x.thread;
  return parts && parts.length > 0 ? parts.map((part) => part.text) : null;
}

function recordAccepted(state: BurstState, customer: ChaosCustomer, create: PlannedCreate, answer: ApiAnswer): string[] {
  const accepted: string[] = [];
  const results = Array.isArray(answer.body.posts) ? (answer.body.posts as Record<string, unknown>[]) : [];
  for (const result of results) {
    if (result.status !== 'accepted' || typeof result.id !== 'string') continue;
    const account = customer.accounts.find((entry) => entry.id === result.accountId);
    if (!account) continue;
    if (!state.posts.has(result.id)) {
      state.posts.set(result.id, {
        id: result.id,
        accountId: account.id,
        platform: account.platform,
        sandbox: account.sandbox,
        text: create.body.text ?? '',
        withMedia: (create.body.media ?? []).length > 0,
        accepted: true,
        orphan: false,
        thread: threadOf(create.body),
        deletion: null,
      });
    }
    accepted.push(result.id);
  }
  return accepted;
}

/** Sends one create; true once it has a final answer (202, or a refusal that will not change). */
async function sendCreate(api: Api, state: BurstState, customer: ChaosCustomer, create: PlannedCreate): Promise<string[] | null> {
  let answer: ApiAnswer;
  try {
    answer = await api.request('POST', '/posts', create.body, { 'Idempotency-Key': create.idempotencyKey });
  } catch (error) {
    create.detail = (error as Error).message;
    return null;
  }
  if (answer.status === 202) {
    create.state = 'answered';
    create.detail = answer.body.object === 'post_batch' ? '202' : '202 (unexpected body)';
    return recordAccepted(state, customer, create, answer);
  }
  const code = String((answer.body.error as Record<string, unknown> | undefined)?.code ?? '');
  // Worth sending again: our own lock from the request the crash interrupted, or a 5xx.
  if (answer.status === 409 || answer.status >= 500) {
    create.detail = `${answer.status} ${code}`;
    return null;
  }
  // A scheduled time that passed while the stack was down: nothing was created by the lost
  // request (its posts and its idempotency record are one transaction), so nothing is owed.
  create.state = 'not_created';
  create.detail = `${answer.status} ${code}`;
  if (code !== 'scheduled_for_in_past') state.problems.push(`create ${create.index} refused: ${answer.status} ${code}`);
  return [];
}

export async function sendDelete(api: Api, post: KnownPost, pendingDeletes: string[]): Promise<void> {
  const deletion = post.deletion;
  if (!deletion) return;
  const query = deletion.deleteFromPlatform ? '?deleteFromPlatform=true' : '';
  let answer: ApiAnswer;
  try {
    answer = await api.request('DELETE', `/posts/${post.id}${query}`);
  } catch {
    pendingDeletes.push(post.id);
    return;
  }
  if (answer.status === 200) deletion.outcome = answer.body.softDeleted === false ? 'cancelled' : 'soft_deleted';
  // Gone already: a request whose answer was lost did it, and we cannot tell what it answered.
  else if (answer.status === 404) deletion.outcome = 'unknown';
  else pendingDeletes.push(post.id);
}

/**
 * Runs the burst against `api` until every request has an answer or failed for want of a stack;
 * the caller kills the stack whenever it likes meanwhile.
 */
export async function runBurst(api: Api, rng: Rng, customer: ChaosCustomer, state: BurstState): Promise<void> {
  const inFlight: Promise<void>[] = [];
  for (const create of state.creates) {
    await sleep(Math.floor(rng() * 120));
    const deleteDelays = [rng(), rng(), rng()];
    inFlight.push(
      (async () => {
        const accepted = await sendCreate(api, state, customer, create);
        for (const [slot, id] of (accepted ?? []).entries()) {
          const post = state.posts.get(id);
          // About a third of the posts are deleted a moment later, most from the platform too.
          // Never a media-only post: with no text, only its platform id (which a deleted post no
          // longer shows) tells its platform copy apart.
          // Nor a thread: deleting one between parts leaves its further parts live (docs/reliability.md,
          // "Threads"), which the thread check would have to tell from a lost part.
          if (!post || post.text === '' || post.thread !== null || (deleteDelays[slot % 3] ?? 1) > 0.35) continue;
          post.deletion = { deleteFromPlatform: (deleteDelays[(slot + 1) % 3] ?? 0) < 0.66, outcome: 'pending' };
          await sleep(Math.floor((deleteDelays[(slot + 2) % 3] ?? 0) * 2500));
          await sendDelete(api, post, state.pendingDeletes);
        }
      })(),
    );
  }
  await Promise.all(inFlight);
}

/** After the restart: every create and delete whose answer the crash took is sent again. */
export async function retryLost(api: Api, customer: ChaosCustomer, state: BurstState, deadline: number): Promise<void> {
  for (const create of state.creates) {
    while (create.state === 'pending') {
      const accepted = await sendCreate(api, state, customer, create);
      if (accepted !== null) break;
      if (Date.now() > deadline) {
        state.problems.push(`create ${create.index} got no answer after the restart: ${create.detail}`);
        break;
      }
      await sleep(1000);
    }
  }
  const pending = state.pendingDeletes.splice(0);
  for (const id of pending) {
    const post = state.posts.get(id);
    if (post) await sendDelete(api, post, state.pendingDeletes);
  }
  for (const id of state.pendingDeletes) state.problems.push(`delete of ${id} got no answer after the restart`);
}
