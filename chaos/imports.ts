/**
 * Media imports in the crash test (chaos/run.ts): each cycle starts a few imports from a file
 * server this process runs, slow enough (a 12 MB video sent over a few seconds) that the kill
 * usually lands while the worker is streaming one. An import whose answer the kill took is sent
 * again with its Idempotency-Key after the restart. At the end of the run every import must be
 * `ready` with the whole file, with exactly one `media.ready` event and no `media.failed`: none
 * lost, none stuck, none twice. A killed worker's import waits for its lease (3 minutes) before the
 * sweeper queues it again, so they are checked once, after the last cycle.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Api, NoAnswerError } from './burst.js';

const MiB = 1024 * 1024;
const CHUNKS = 24;
const CHUNK_PAUSE_MS = 120;

function box(type: string, content: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + content.byteLength, 0);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, content]);
}

/** A 12 MB MP4 of 30 s, its moov at the end: more than one 8 MiB part, so the write goes in parts. */
function video(): Buffer {
  const mvhd = Buffer.alloc(100);
  mvhd.writeUInt32BE(1000, 12);
  mvhd.writeUInt32BE(30_000, 16);
  return Buffer.concat([box('ftyp', Buffer.from('isom\0\0\0\0isomavc1', 'latin1')), box('mdat', Buffer.alloc(12 * MiB, 5)), box('moov', box('mvhd', mvhd))]);
}

export interface TrackedImport {
  cycle: number;
  apiKey: string;
  idempotencyKey: string;
  sourceUrl: string;
  /** Null while the create's answer is lost (the kill took it). */
  mediaId: string | null;
}

export interface ImportCheck {
  started: number;
  ready: number;
  failed: number;
  stuck: number;
  eventsMissing: number;
  eventsDuplicated: number;
  problems: string[];
}

export class ImportSource {
  readonly body = video();
  private server: Server | null = null;
  private origin = '';

  async start(): Promise<void> {
    this.server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(this.body.byteLength) });
      const size = Math.ceil(this.body.byteLength / CHUNKS);
      void (async () => {
        for (let offset = 0; offset < this.body.byteLength && !response.destroyed; offset += size) {
          response.write(this.body.subarray(offset, offset + size));
          await sleep(CHUNK_PAUSE_MS);
        }
        response.end();
      })();
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  url(name: string): string {
    return `${this.origin}/${name}.mp4`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** POST /media with sourceUrl and its key; the media id, or null when the answer was lost. */
async function send(api: Api, tracked: TrackedImport): Promise<string | null> {
  try {
    const answer = await api.request('POST', '/media', { sourceUrl: tracked.sourceUrl }, { 'Idempotency-Key': tracked.idempotencyKey });
    if (answer.status === 202 && typeof answer.body.id === 'string') return answer.body.id;
    // The first request with this key still holds it (a kill interrupted it): try again later.
    if (answer.status === 409) return null;
    throw new Error(`import not accepted: ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
  } catch (error) {
    if (error instanceof NoAnswerError) return null;
    throw error;
  }
}

export async function startImports(api: Api, apiKey: string, source: ImportSource, cycle: number, count: number): Promise<TrackedImport[]> {
  const tracked = Array.from({ length: count }, (_, index): TrackedImport => ({
    cycle,
    apiKey,
    idempotencyKey: `chaos-import-${cycle}-${index}`,
    sourceUrl: source.url(`c${cycle}-${index}`),
    mediaId: null,
  }));
  await Promise.all(tracked.map(async (one) => (one.mediaId = await send(api, one))));
  return tracked;
}

/** After the restart: each import whose answer was lost is sent again with its key until it is answered. */
export async function resolveLostImports(api: Api, imports: readonly TrackedImport[], deadline: number): Promise<string[]> {
  const problems: string[] = [];
  for (const one of imports) {
    while (one.mediaId === null && Date.now() < deadline) {
      one.mediaId = await send(api, one);
      if (one.mediaId === null) await sleep(1000);
    }
    if (one.mediaId === null) problems.push(`import ${one.idempotencyKey}: no answer to its create after the restart`);
  }
  return problems;
}

/** Every import settled by `deadline`: ready with the whole file, one media.ready event, no media.failed. */
export async function checkImports(baseUrl: string, imports: readonly TrackedImport[], expectedBytes: number, deadline: number): Promise<ImportCheck> {
  const check: ImportCheck = { started: imports.length, ready: 0, failed: 0, stuck: 0, eventsMissing: 0, eventsDuplicated: 0, problems: [] };
  for (const one of imports) {
    if (one.mediaId === null) {
      check.stuck += 1;
      check.problems.push(`import ${one.idempotencyKey}: never answered`);
      continue;
    }
    const api = new Api(baseUrl, one.apiKey);
    let media: Record<string, unknown> = {};
    for (;;) {
      media = (await api.request('GET', `/media/${one.mediaId}`)).body;
      if (media.status === 'ready' || media.status === 'failed' || Date.now() > deadline) break;
      await sleep(2000);
    }
    if (media.status === 'ready' && media.size === expectedBytes && media.durationSeconds === 30) check.ready += 1;
    else if (media.status === 'failed') {
      check.failed += 1;
      check.problems.push(`import ${one.mediaId} (cycle ${one.cycle}) failed: ${JSON.stringify(media.error)}`);
    } else {
      check.stuck += 1;
      check.problems.push(`import ${one.mediaId} (cycle ${one.cycle}) is ${String(media.status)} (size ${String(media.size)})`);
    }
    // Its events: exactly one media.ready (the router may still be writing it: a few seconds more).
    let ready = 0;
    let failed = 0;
    for (let attempt = 0; attempt < 15; attempt++) {
      const events = ((await api.request('GET', '/events?type=media.*&limit=100')).body.events ?? []) as { type: string; data: { object: { id: string } } }[];
      const mine = events.filter((event) => event.data.object.id === one.mediaId);
      ready = mine.filter((event) => event.type === 'media.ready').length;
      failed = mine.filter((event) => event.type === 'media.failed').length;
      if (ready + failed > 0 || media.status !== 'ready') break;
      await sleep(1000);
    }
    if (media.status === 'ready' && ready === 0) {
      check.eventsMissing += 1;
      check.problems.push(`import ${one.mediaId}: no media.ready event`);
    }
    if (ready > 1 || failed > 0) {
      check.eventsDuplicated += 1;
      check.problems.push(`import ${one.mediaId}: ${ready} media.ready and ${failed} media.failed events`);
    }
  }
  return check;
}
