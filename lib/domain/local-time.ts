/**
 * A person's time zone on the settings pages (beyond-v2.md "Queues and time zones"): how an instant
 * reads on their wall clock, and the Calendar's week of local days.
 *
 * Every conversion names its zone and goes through the queue's `Intl` helpers (lib/domain/queue.ts),
 * so nothing here depends on the machine's `TZ` and there is no offset table. A local day starts at
 * its local midnight's instant and ends at the next day's, so a day with a clock change is 23 or 25
 * hours long (23.5 / 24.5 on Lord Howe); a midnight that does not exist moves forward by the jump.
 */
import { localLabel, localToInstant, offsetAt } from './queue.js';

const DAY_MS = 86_400_000;
const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;
/** The Calendar's weeks: far enough either way for any real post, near enough for any tz data. */
const FIRST_WEEK = '2000-01-03';
const LAST_WEEK = '2099-12-28';

export const DEFAULT_TIME_ZONE = 'UTC';

/** `UTC`, `UTC+2`, `UTC+5:30`, `UTC-3:30`: the zone's offset at an instant, from Intl's data. */
export function offsetName(instantMs: number, timeZone: string): string {
  const minutes = Math.round(offsetAt(instantMs, timeZone) / 60_000);
  if (minutes === 0) return 'UTC';
  const whole = Math.abs(minutes);
  const hours = Math.floor(whole / 60);
  const rest = whole % 60;
  return `UTC${minutes < 0 ? '-' : '+'}${hours}${rest === 0 ? '' : `:${String(rest).padStart(2, '0')}`}`;
}

export interface LocalTime {
  /** `2026-03-29 03:00 UTC+2`: the wall clock with the offset in force, so a repeated hour is never ambiguous. */
  label: string;
  /** `2026-03-29T01:00:00.000Z`: the exact instant (the `datetime` of a `<time>`). */
  utc: string;
  /** `2026-03-29 01:00 UTC`: the instant as UTC reads it (the hover text). */
  utcLabel: string;
}

export function localTime(instantMs: number, timeZone: string): LocalTime {
  const utc = new Date(instantMs).toISOString();
  return {
    label: `${localLabel(instantMs, timeZone).replace('T', ' ')} ${offsetName(instantMs, timeZone)}`,
    utc,
    utcLabel: `${utc.slice(0, 16).replace('T', ' ')} UTC`,
  };
}

/** A calendar date `YYYY-MM-DD` as milliseconds of its UTC midnight (a local date's fields, not an instant). */
function dateMs(date: string): number | null {
  const match = DATE_PATTERN.exec(date);
  if (!match) return null;
  const ms = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  // Date.UTC rolls 2026-02-31 over to March: only a date that reads back the same is one.
  return new Date(ms).toISOString().slice(0, 10) === date ? ms : null;
}

function dateOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The Monday of the week a calendar date falls in. */
function mondayOf(ms: number): number {
  const weekday = (new Date(ms).getUTCDay() + 6) % 7;
  return ms - weekday * DAY_MS;
}

export interface LocalDay {
  /** `2026-03-29` */
  date: string;
  /** The instant the day starts (its local midnight, or the first instant after it when midnight does not exist). */
  startMs: number;
  /** The next day's start. */
  endMs: number;
}

export interface CalendarWeek {
  /** The Monday, `YYYY-MM-DD`: the `week` of the page's links. */
  monday: string;
  previous: string;
  next: string;
  days: LocalDay[];
  startMs: number;
  endMs: number;
}

/** The instant a local date starts in a zone. */
export function localDayStart(date: string, timeZone: string): number {
  const ms = dateMs(date);
  if (ms === null) throw new Error(`Not a date: ${date}`);
  return localToInstant(ms, timeZone);
}

/** Monday to Sunday of the week holding a local date, each day's bounds as instants in the zone. */
export function calendarWeek(date: string, timeZone: string): CalendarWeek {
  const ms = dateMs(date);
  if (ms === null) throw new Error(`Not a date: ${date}`);
  const monday = mondayOf(ms);
  const days: LocalDay[] = [];
  for (let index = 0; index < 7; index++) {
    const day = dateOf(monday + index * DAY_MS);
    days.push({ date: day, startMs: localDayStart(day, timeZone), endMs: localDayStart(dateOf(monday + (index + 1) * DAY_MS), timeZone) });
  }
  return {
    monday: dateOf(monday),
    previous: dateOf(monday - 7 * DAY_MS),
    next: dateOf(monday + 7 * DAY_MS),
    days,
    startMs: days[0]!.startMs,
    endMs: days[6]!.endMs,
  };
}

/** The local date (`YYYY-MM-DD`) of an instant in a zone: the week a Calendar without `week` shows. */
export function localDate(instantMs: number, timeZone: string): string {
  return localLabel(instantMs, timeZone).slice(0, 10);
}

export type WeekVerdict = { ok: true; date: string } | { ok: false; message: string };

/** The Calendar's `week` query value: a real date `YYYY-MM-DD` between 2000 and 2099; any day picks its week. */
export function parseWeek(value: string): WeekVerdict {
  const ms = value.length <= 10 ? dateMs(value) : null;
  if (ms === null) return { ok: false, message: `“${value.slice(0, 40)}” is not a date: the week is a date written YYYY-MM-DD, such as 2026-03-30.` };
  const monday = dateOf(mondayOf(ms));
  if (monday < FIRST_WEEK || monday > LAST_WEEK) return { ok: false, message: 'The calendar shows weeks from the year 2000 to 2099.' };
  return { ok: true, date: value };
}

/** The hours of a local day (23, 24 or 25; 23.5 or 24.5 on Lord Howe). */
export function dayHours(day: LocalDay): number {
  return (day.endMs - day.startMs) / 3_600_000;
}

export interface HourKey {
  /** `09:00`: the local hour an instant falls in. */
  hour: string;
  /** The offset then: two equal hours of a day whose clocks went back differ in it. */
  offset: string;
}

export function hourOf(instantMs: number, timeZone: string): HourKey {
  return { hour: `${localLabel(instantMs, timeZone).slice(11, 13)}:00`, offset: offsetName(instantMs, timeZone) };
}
