/**
 * An account's queue (beyond-v2.md "Queues and time zones"): posting times as local wall-clock
 * slots (`{day, time}`) in an IANA time zone, and the rules that turn them into instants.
 *
 * Time zones come from the platform's `Intl` data (the ICU tz database Node ships, updated with the
 * runtime), never from a hand-made offset table, and nothing here reads the machine's `TZ`: every
 * conversion names its zone (docs/queues.md says why `Intl` rather than Luxon or Temporal's polyfill).
 *
 * Local times that do not exist on a day (clocks jump forward) move forward by the jump; local
 * times that happen twice (clocks go back) are the first of the two.
 */

export const QUEUE_DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type QueueDay = (typeof QUEUE_DAYS)[number];

export interface QueueSlot {
  day: QueueDay;
  /** `HH:MM`, 24-hour. */
  time: string;
}

export interface Queue {
  accountId: string;
  timeZone: string;
  slots: QueueSlot[];
}

export const MAX_QUEUE_SLOTS = 100;
/** How far ahead a queued post may land: the same horizon as scheduledFor. */
export const QUEUE_HORIZON_DAYS = 30;
/** A queued post lands at least this far after now, so it is still in the future when it is dispatched. */
export const QUEUE_LEAD_MS = 60_000;
export const NEXT_SLOTS_DEFAULT = 10;
export const NEXT_SLOTS_MAX = 50;

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;
const TIME_PATTERN = /^([01]\d|2[0-3]):([0-5]\d)$/;
/** An IANA name is short; a longer value is refused before `Intl` sees it. */
const MAX_TIME_ZONE_LENGTH = 64;

export const EMPTY_QUEUE_TIME_ZONE = 'UTC';

export function emptyQueue(accountId: string): Queue {
  return { accountId, timeZone: EMPTY_QUEUE_TIME_ZONE, slots: [] };
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** One formatter per zone: building one costs far more than using it. */
function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/**
 * The zone's name, or null when the runtime's tz data does not know it. Written as the customer
 * wrote it ("Asia/Kolkata" stays so, though ICU's own name for it is "Asia/Calcutta"), only with
 * its case fixed when that is all that differs from ICU's name ("europe/berlin" is "Europe/Berlin").
 */
export function canonicalTimeZone(value: string): string | null {
  if (value.length === 0 || value.length > MAX_TIME_ZONE_LENGTH || !/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(value)) return null;
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone;
    return resolved.toLowerCase() === value.toLowerCase() ? resolved : value;
  } catch {
    return null;
  }
}

/** Every zone the runtime knows (the settings picker). */
export function knownTimeZones(): string[] {
  const zones = Intl.supportedValuesOf('timeZone');
  return zones.includes('UTC') ? zones : ['UTC', ...zones];
}

/** The wall clock of an instant in a zone, as milliseconds of a UTC date with the same fields. */
function wallClockMs(instantMs: number, timeZone: string): number {
  const parts = formatterFor(timeZone).formatToParts(new Date(instantMs));
  const field = (type: Intl.DateTimeFormatPartTypes): number => Number(parts.find((part) => part.type === type)?.value ?? 0);
  return Date.UTC(field('year'), field('month') - 1, field('day'), field('hour'), field('minute'), field('second'));
}

/** The zone's offset from UTC at an instant, in milliseconds (local = UTC + offset). */
export function offsetAt(instantMs: number, timeZone: string): number {
  // Whole seconds: formatToParts has no milliseconds.
  const whole = Math.floor(instantMs / 1000) * 1000;
  return wallClockMs(whole, timeZone) - whole;
}

/**
 * The instant of a local wall-clock time (given as milliseconds of a UTC date with the same
 * fields) in a zone. Repeated local times are the first; nonexistent ones move forward by the jump
 * (the local time read with the offset in force before the transition).
 */
export function localToInstant(localMs: number, timeZone: string): number {
  // At most one transition lies within a day of any local time in the tz database's zones.
  const before = offsetAt(localMs - DAY_MS, timeZone);
  const after = offsetAt(localMs + DAY_MS, timeZone);
  const candidates = [localMs - before, localMs - after].filter((instant) => offsetAt(instant, timeZone) === localMs - instant);
  if (candidates.length > 0) return Math.min(...candidates);
  return localMs - before;
}

/** `2026-12-07T09:00`: an instant's wall clock in a zone, to the minute. */
export function localLabel(instantMs: number, timeZone: string): string {
  return new Date(wallClockMs(instantMs, timeZone)).toISOString().slice(0, 16);
}

function slotMinutes(time: string): number {
  const match = TIME_PATTERN.exec(time);
  if (!match) throw new Error(`Not a slot time: ${time}`);
  return Number(match[1]) * 60 + Number(match[2]);
}

export function isSlotTime(value: unknown): value is string {
  return typeof value === 'string' && TIME_PATTERN.test(value);
}

export function isQueueDay(value: unknown): value is QueueDay {
  return typeof value === 'string' && (QUEUE_DAYS as readonly string[]).includes(value);
}

/** Monday 0 … Sunday 6 of a date held as UTC milliseconds. */
function weekdayIndex(dayMs: number): number {
  return (new Date(dayMs).getUTCDay() + 6) % 7;
}

export interface SlotInstant {
  /** UTC milliseconds. */
  at: number;
  /** The instant's wall clock in the queue's zone, `YYYY-MM-DDTHH:MM` (a slot moved forward by a jump shows where it landed). */
  local: string;
}

/**
 * Every slot instant of a queue in `[from, until]`, earliest first, each instant once (two slots can
 * land on one instant when one of them falls in a jump).
 */
export function slotInstants(queue: Pick<Queue, 'timeZone' | 'slots'>, fromMs: number, untilMs: number): SlotInstant[] {
  if (queue.slots.length === 0 || untilMs < fromMs) return [];
  const byDay = new Map<number, number[]>();
  for (const slot of queue.slots) {
    const index = QUEUE_DAYS.indexOf(slot.day);
    byDay.set(index, [...(byDay.get(index) ?? []), slotMinutes(slot.time)]);
  }
  // Local dates that can hold an instant in range: offsets are within ±1 day of UTC.
  const firstDay = Math.floor(wallClockMs(fromMs, queue.timeZone) / DAY_MS) * DAY_MS - DAY_MS;
  const lastDay = Math.floor(wallClockMs(untilMs, queue.timeZone) / DAY_MS) * DAY_MS + DAY_MS;
  const found = new Map<number, SlotInstant>();
  for (let day = firstDay; day <= lastDay; day += DAY_MS) {
    for (const minutes of byDay.get(weekdayIndex(day)) ?? []) {
      const localMs = day + minutes * MINUTE_MS;
      const at = localToInstant(localMs, queue.timeZone);
      if (at < fromMs || at > untilMs || found.has(at)) continue;
      found.set(at, { at, local: localMs === wallClockMs(at, queue.timeZone) ? new Date(localMs).toISOString().slice(0, 16) : localLabel(at, queue.timeZone) });
    }
  }
  return [...found.values()].sort((a, b) => a.at - b.at);
}

/** Whether `atMs` is one of the queue's slot instants (a post scheduled exactly then takes that slot). */
export function isSlotInstant(queue: Pick<Queue, 'timeZone' | 'slots'>, atMs: number): boolean {
  return slotInstants(queue, atMs, atMs).some((slot) => slot.at === atMs);
}

/** The window a queued post may land in: from now + 1 minute to the 30-day horizon. */
export function queueWindow(now: Date): { fromMs: number; untilMs: number } {
  return { fromMs: now.getTime() + QUEUE_LEAD_MS, untilMs: now.getTime() + QUEUE_HORIZON_DAYS * DAY_MS };
}

/**
 * The first `count` free slots of a queue after now: `taken` holds the instants (UTC ms) already
 * taken. Fewer than `count` when the horizon runs out.
 */
export function freeSlots(queue: Pick<Queue, 'timeZone' | 'slots'>, now: Date, taken: ReadonlySet<number>, count: number): SlotInstant[] {
  const { fromMs, untilMs } = queueWindow(now);
  const free: SlotInstant[] = [];
  for (const slot of slotInstants(queue, fromMs, untilMs)) {
    if (taken.has(slot.at)) continue;
    free.push(slot);
    if (free.length >= count) break;
  }
  return free;
}

export type QueueSlotVerdict = { ok: true; slot: SlotInstant } | { ok: false; reason: 'queue_empty' | 'queue_full' };

/** The earliest free slot of a queue, or why there is none. */
export function nextFreeSlot(queue: Pick<Queue, 'timeZone' | 'slots'>, now: Date, taken: ReadonlySet<number>): QueueSlotVerdict {
  if (queue.slots.length === 0) return { ok: false, reason: 'queue_empty' };
  const [slot] = freeSlots(queue, now, taken, 1);
  return slot ? { ok: true, slot } : { ok: false, reason: 'queue_full' };
}

export type QueueInputVerdict =
  | { ok: true; timeZone: string; slots: QueueSlot[] }
  | { ok: false; code: 'invalid_time_zone' | 'invalid_slot' | 'invalid_body'; message: string; param: string };

/**
 * The body of `PUT /accounts/{id}/queue`: `timeZone` an IANA name, `slots` 0-100 `{day, time}`.
 * Duplicate slots are kept once and the list is sorted by day and time, so a queue reads the same
 * however it was written.
 */
export function parseQueueInput(body: unknown): QueueInputVerdict {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, code: 'invalid_body', message: 'The body must be a JSON object with timeZone and slots.', param: 'body' };
  }
  const { timeZone, slots } = body as { timeZone?: unknown; slots?: unknown };
  const unknownKey = Object.keys(body).find((key) => key !== 'timeZone' && key !== 'slots');
  if (unknownKey !== undefined) {
    return { ok: false, code: 'invalid_body', message: `Unknown field ${JSON.stringify(unknownKey.slice(0, 40))}: a queue has timeZone and slots.`, param: unknownKey.slice(0, 40) };
  }
  const zone = typeof timeZone === 'string' ? canonicalTimeZone(timeZone) : null;
  if (zone === null) {
    return { ok: false, code: 'invalid_time_zone', message: 'timeZone must be an IANA time zone name such as "Europe/Berlin" or "UTC".', param: 'timeZone' };
  }
  if (!Array.isArray(slots)) {
    return { ok: false, code: 'invalid_slot', message: 'slots must be an array of {day, time} (0 to 100 entries).', param: 'slots' };
  }
  if (slots.length > MAX_QUEUE_SLOTS) {
    return { ok: false, code: 'invalid_slot', message: `A queue has at most ${MAX_QUEUE_SLOTS} slots.`, param: 'slots' };
  }
  const seen = new Map<string, QueueSlot>();
  for (const [index, slot] of slots.entries()) {
    const param = `slots[${index}]`;
    if (typeof slot !== 'object' || slot === null || Array.isArray(slot)) {
      return { ok: false, code: 'invalid_slot', message: 'Each slot is an object {day, time}.', param };
    }
    const { day, time } = slot as { day?: unknown; time?: unknown };
    if (Object.keys(slot).some((key) => key !== 'day' && key !== 'time')) {
      return { ok: false, code: 'invalid_slot', message: 'A slot has only day and time.', param };
    }
    if (!isQueueDay(day)) {
      return { ok: false, code: 'invalid_slot', message: 'day must be one of monday, tuesday, wednesday, thursday, friday, saturday, sunday.', param: `${param}.day` };
    }
    if (!isSlotTime(time)) {
      return { ok: false, code: 'invalid_slot', message: 'time must be HH:MM, 24-hour (00:00 to 23:59).', param: `${param}.time` };
    }
    seen.set(`${day} ${time}`, { day, time });
  }
  const sorted = [...seen.values()].sort(
    (a, b) => QUEUE_DAYS.indexOf(a.day) - QUEUE_DAYS.indexOf(b.day) || a.time.localeCompare(b.time),
  );
  return { ok: true, timeZone: zone, slots: sorted };
}

/**
 * A create's transaction found a slot taken by another request since the slots were read: the
 * use case chooses again for those accounts (the slot is known taken now).
 */
export class QueueSlotTakenError extends Error {
  constructor(readonly taken: { accountId: string; scheduledFor: string }[]) {
    super(`Queue slots taken meanwhile: ${taken.map((slot) => `${slot.accountId}@${slot.scheduledFor}`).join(', ')}`);
    this.name = 'QueueSlotTakenError';
  }
}
