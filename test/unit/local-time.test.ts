/**
 * The settings pages' local time (lib/domain/local-time.ts): an instant on a person's wall clock
 * with its offset, and the Calendar's local days, whose lengths follow the zone's clock changes.
 * Every case runs under three machine TZ values (Node applies a change of process.env.TZ at once):
 * the answers must not move, because every conversion names its zone.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { calendarWeek, dayHours, hourOf, localDate, localDayStart, localTime, offsetName, parseWeek } from '../../lib/domain/local-time.js';

const MACHINE_ZONES = ['UTC', 'Pacific/Chatham', 'America/Los_Angeles'] as const;
const original = process.env.TZ;
afterAll(() => {
  if (original === undefined) delete process.env.TZ;
  else process.env.TZ = original;
});

const iso = (ms: number): string => new Date(ms).toISOString();

// Each line: a zone, a local date, the instant that day starts, the day's hours.
const DAYS: [string, string, string, number][] = [
  ['Europe/Berlin', '2026-03-29', '2026-03-28T23:00:00.000Z', 23],
  ['Europe/Berlin', '2026-03-30', '2026-03-29T22:00:00.000Z', 24],
  ['Europe/Berlin', '2026-10-25', '2026-10-24T22:00:00.000Z', 25],
  ['America/New_York', '2026-03-08', '2026-03-08T05:00:00.000Z', 23],
  ['America/New_York', '2026-11-01', '2026-11-01T04:00:00.000Z', 25],
  ['America/New_York', '2026-11-02', '2026-11-02T05:00:00.000Z', 24],
  ['Australia/Lord_Howe', '2026-10-04', '2026-10-03T13:30:00.000Z', 23.5],
  ['Australia/Lord_Howe', '2026-04-05', '2026-04-04T13:00:00.000Z', 24.5],
  ['Asia/Kolkata', '2026-03-29', '2026-03-28T18:30:00.000Z', 24],
  ['Asia/Kolkata', '2026-10-25', '2026-10-24T18:30:00.000Z', 24],
  // Midnight itself is skipped here (clocks went 24:00 -> 01:00): the day starts at 01:00, the jump forward.
  ['America/Santiago', '2026-09-06', '2026-09-06T04:00:00.000Z', 23],
];

// Each line: an instant, a zone, how it reads there.
const LABELS: [string, string, string][] = [
  ['2026-03-29T00:59:00Z', 'Europe/Berlin', '2026-03-29 01:59 UTC+1'],
  ['2026-03-29T01:00:00Z', 'Europe/Berlin', '2026-03-29 03:00 UTC+2'],
  ['2026-10-25T00:30:00Z', 'Europe/Berlin', '2026-10-25 02:30 UTC+2'],
  ['2026-10-25T01:30:00Z', 'Europe/Berlin', '2026-10-25 02:30 UTC+1'],
  ['2026-11-01T05:30:00Z', 'America/New_York', '2026-11-01 01:30 UTC-4'],
  ['2026-11-01T06:30:00Z', 'America/New_York', '2026-11-01 01:30 UTC-5'],
  ['2026-10-03T15:45:00Z', 'Australia/Lord_Howe', '2026-10-04 02:45 UTC+11'],
  ['2026-06-01T00:00:00Z', 'Australia/Lord_Howe', '2026-06-01 10:30 UTC+10:30'],
  ['2026-12-31T18:29:00Z', 'Asia/Kolkata', '2026-12-31 23:59 UTC+5:30'],
  ['2026-12-31T18:30:00Z', 'Asia/Kolkata', '2027-01-01 00:00 UTC+5:30'],
  ['2026-12-07T12:30:00Z', 'America/St_Johns', '2026-12-07 09:00 UTC-3:30'],
  ['2026-12-07T12:30:00Z', 'UTC', '2026-12-07 12:30 UTC'],
];

for (const machineZone of MACHINE_ZONES) {
  describe(`with the machine's TZ=${machineZone}`, () => {
    it('the machine zone really is in force (the cases below would pass trivially otherwise)', () => {
      process.env.TZ = machineZone;
      const expected = { UTC: 0, 'Pacific/Chatham': -825, 'America/Los_Angeles': 480 }[machineZone];
      expect(new Date(Date.UTC(2026, 0, 15)).getTimezoneOffset()).toBe(expected);
    });

    it.each(DAYS)('%s %s starts at %s and lasts %s hours', (zone, date, start, hours) => {
      process.env.TZ = machineZone;
      expect(iso(localDayStart(date, zone))).toBe(start);
      const week = calendarWeek(date, zone);
      const day = week.days.find((entry) => entry.date === date);
      expect(day).toBeDefined();
      expect(iso(day!.startMs)).toBe(start);
      expect(dayHours(day!)).toBe(hours);
    });

    it.each(LABELS)('%s in %s reads %s, with the UTC instant beside it', (instant, zone, label) => {
      process.env.TZ = machineZone;
      const time = localTime(Date.parse(instant), zone);
      expect(time.label).toBe(label);
      expect(time.utc).toBe(new Date(instant).toISOString());
      expect(time.utcLabel).toBe(`${instant.slice(0, 10)} ${instant.slice(11, 16)} UTC`);
    });
  });
}

describe('a calendar week', () => {
  it('runs Monday to Sunday from any of its days, with the weeks either side', () => {
    for (const date of ['2026-03-23', '2026-03-26', '2026-03-29']) {
      const week = calendarWeek(date, 'Europe/Berlin');
      expect(week.monday).toBe('2026-03-23');
      expect(week.previous).toBe('2026-03-16');
      expect(week.next).toBe('2026-03-30');
      expect(week.days.map((day) => day.date)).toEqual(['2026-03-23', '2026-03-24', '2026-03-25', '2026-03-26', '2026-03-27', '2026-03-28', '2026-03-29']);
    }
  });

  it('the DST weeks are 167 and 169 hours long in Berlin and New York', () => {
    expect((calendarWeek('2026-03-29', 'Europe/Berlin').endMs - calendarWeek('2026-03-29', 'Europe/Berlin').startMs) / 3_600_000).toBe(167);
    expect((calendarWeek('2026-10-25', 'Europe/Berlin').endMs - calendarWeek('2026-10-25', 'Europe/Berlin').startMs) / 3_600_000).toBe(169);
    expect((calendarWeek('2026-03-08', 'America/New_York').endMs - calendarWeek('2026-03-08', 'America/New_York').startMs) / 3_600_000).toBe(167);
    expect((calendarWeek('2026-11-01', 'America/New_York').endMs - calendarWeek('2026-11-01', 'America/New_York').startMs) / 3_600_000).toBe(169);
  });

  it('the two 02:00 hours of the day Berlin clocks go back differ in their offset', () => {
    expect(hourOf(Date.parse('2026-10-25T00:30:00Z'), 'Europe/Berlin')).toEqual({ hour: '02:00', offset: 'UTC+2' });
    expect(hourOf(Date.parse('2026-10-25T01:30:00Z'), 'Europe/Berlin')).toEqual({ hour: '02:00', offset: 'UTC+1' });
  });

  const ZONES = ['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kolkata', 'Pacific/Chatham', 'America/St_Johns', 'UTC'];

  it('any instant lies in exactly one day of its own local week, the one with its local date (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: Date.parse('2001-01-01T00:00:00Z'), max: Date.parse('2098-12-31T00:00:00Z') }), fc.constantFrom(...ZONES), (instant, zone) => {
        const date = localDate(instant, zone);
        const week = calendarWeek(date, zone);
        const holding = week.days.filter((day) => instant >= day.startMs && instant < day.endMs);
        expect(holding.map((day) => day.date)).toEqual([date]);
        // Days tile the week: each ends where the next starts, and no day is under 23 or over 25 hours.
        week.days.forEach((day, index) => {
          if (index < 6) expect(day.endMs).toBe(week.days[index + 1]!.startMs);
          expect(dayHours(day)).toBeGreaterThanOrEqual(23);
          expect(dayHours(day)).toBeLessThanOrEqual(25);
        });
      }),
    );
  });
});

describe('the week of a Calendar link', () => {
  it('takes a real date and refuses anything else with a sentence', () => {
    expect(parseWeek('2026-03-29')).toEqual({ ok: true, date: '2026-03-29' });
    for (const bad of ['', '2026-02-30', '2026-3-29', '29/03/2026', 'x'.repeat(5000), '1999-12-31', '2100-01-04', '2026-03-29T00:00']) {
      const verdict = parseWeek(bad);
      expect(verdict.ok).toBe(false);
      if (!verdict.ok) expect(verdict.message.length).toBeLessThan(120);
    }
  });

  it('names offsets as UTC±H[:MM]', () => {
    expect(offsetName(Date.parse('2026-06-01T00:00:00Z'), 'Asia/Kolkata')).toBe('UTC+5:30');
    expect(offsetName(Date.parse('2026-06-01T00:00:00Z'), 'Asia/Kathmandu')).toBe('UTC+5:45');
    expect(offsetName(Date.parse('2026-06-01T00:00:00Z'), 'America/St_Johns')).toBe('UTC-2:30');
    expect(offsetName(Date.parse('2026-06-01T00:00:00Z'), 'Europe/London')).toBe('UTC+1');
    expect(offsetName(Date.parse('2026-01-01T00:00:00Z'), 'Europe/London')).toBe('UTC');
  });
});
