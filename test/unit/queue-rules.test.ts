import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  QUEUE_DAYS,
  canonicalTimeZone,
  freeSlots,
  isSlotInstant,
  localLabel,
  localToInstant,
  nextFreeSlot,
  parseQueueInput,
  slotInstants,
  type QueueSlot,
} from '../../lib/domain/queue.js';

/** The instant (ISO, UTC) of a local wall-clock time `YYYY-MM-DDTHH:MM` in a zone. */
const inZone = (timeZone: string, localTime: string): string =>
  new Date(localToInstant(Date.parse(`${localTime}:00.000Z`), timeZone)).toISOString();

// Each line: a zone, a local time, the instant it is (UTC). Jumps forward move the time forward by
// the jump; repeated times are the first (the offset in force before clocks went back).
const CASES: [string, string, string, string][] = [
  ['Europe/Berlin', '2026-03-29T02:30', '2026-03-29T01:30:00.000Z', 'gap of 1 h: 03:30 CEST'],
  ['Europe/Berlin', '2026-10-25T02:30', '2026-10-25T00:30:00.000Z', 'repeated: the first (CEST)'],
  ['Europe/Berlin', '2026-07-01T09:00', '2026-07-01T07:00:00.000Z', 'summer'],
  ['Europe/Berlin', '2026-12-07T09:00', '2026-12-07T08:00:00.000Z', 'winter'],
  ['America/New_York', '2026-03-08T02:30', '2026-03-08T07:30:00.000Z', 'gap: 03:30 EDT'],
  ['America/New_York', '2026-11-01T01:30', '2026-11-01T05:30:00.000Z', 'repeated: the first (EDT)'],
  ['America/New_York', '2026-11-01T02:30', '2026-11-01T07:30:00.000Z', 'after the repeat: EST'],
  ['Australia/Lord_Howe', '2026-10-04T02:15', '2026-10-03T15:45:00.000Z', 'gap of 30 min: 02:45 +11'],
  ['Australia/Lord_Howe', '2026-04-05T01:45', '2026-04-04T14:45:00.000Z', 'repeated half hour: the first (+11)'],
  ['Australia/Lord_Howe', '2026-06-01T09:00', '2026-05-31T22:30:00.000Z', 'southern winter: +10:30'],
  ['Asia/Kolkata', '2026-03-29T09:00', '2026-03-29T03:30:00.000Z', '+5:30, no DST'],
  ['Asia/Kolkata', '2026-12-31T23:59', '2026-12-31T18:29:00.000Z', '+5:30 on the last minute of a year'],
  ['Pacific/Chatham', '2026-09-27T03:00', '2026-09-26T14:15:00.000Z', 'gap 02:45-03:45: 04:00 +13:45'],
  ['Pacific/Chatham', '2026-04-05T03:00', '2026-04-04T13:15:00.000Z', 'repeated: the first (+13:45)'],
  ['Pacific/Chatham', '2026-07-01T09:00', '2026-06-30T20:15:00.000Z', 'southern winter: +12:45'],
  ['America/St_Johns', '2026-03-08T02:30', '2026-03-08T06:00:00.000Z', 'gap: 03:30 NDT (-2:30)'],
  ['America/St_Johns', '2026-11-01T01:30', '2026-11-01T04:00:00.000Z', 'repeated: the first (NDT)'],
  ['America/St_Johns', '2026-12-07T09:00', '2026-12-07T12:30:00.000Z', 'winter: -3:30'],
];

describe('local times to instants (Intl tz data, whatever the machine TZ is)', () => {
  it.each(CASES)('%s %s is %s (%s)', (timeZone, localTime, expected) => {
    expect(inZone(timeZone, localTime)).toBe(expected);
  });

  it('reads an instant back as its wall clock in the zone', () => {
    expect(localLabel(Date.parse('2026-10-25T00:30:00Z'), 'Europe/Berlin')).toBe('2026-10-25T02:30');
    expect(localLabel(Date.parse('2026-10-25T01:30:00Z'), 'Europe/Berlin')).toBe('2026-10-25T02:30');
    expect(localLabel(Date.parse('2026-09-26T14:15:00Z'), 'Pacific/Chatham')).toBe('2026-09-27T04:00');
  });

});

describe('slots of a queue', () => {
  it('a Sunday 02:30 slot in Berlin on the spring-forward day lands at 03:30, and one 03:30 slot beside it is the same instant, kept once', () => {
    const queue = { timeZone: 'Europe/Berlin', slots: [{ day: 'sunday', time: '02:30' }, { day: 'sunday', time: '03:30' }] as QueueSlot[] };
    const found = slotInstants(queue, Date.parse('2026-03-28T00:00:00Z'), Date.parse('2026-03-30T00:00:00Z'));
    expect(found).toEqual([{ at: Date.parse('2026-03-29T01:30:00Z'), local: '2026-03-29T03:30' }]);
  });

  it('an explicit time is a slot only at a slot instant itself: where a jump moved it, not where the wall clock would say', () => {
    const queue = { timeZone: 'Europe/Berlin', slots: [{ day: 'sunday', time: '02:30' }, { day: 'monday', time: '09:00' }] as QueueSlot[] };
    expect(isSlotInstant(queue, Date.parse('2026-03-29T01:30:00Z'))).toBe(true); // 02:30 moved to 03:30 CEST
    expect(isSlotInstant(queue, Date.parse('2026-03-29T00:30:00Z'))).toBe(false); // 01:30 CET
    expect(isSlotInstant(queue, Date.parse('2026-03-30T07:00:00Z'))).toBe(true); // Monday 09:00 CEST
    expect(isSlotInstant(queue, Date.parse('2026-03-30T07:01:00Z'))).toBe(false);
    expect(isSlotInstant(queue, Date.parse('2026-03-30T08:00:00Z'))).toBe(false); // 10:00 CEST
    expect(isSlotInstant({ timeZone: 'UTC', slots: [] }, Date.parse('2026-03-30T07:00:00Z'))).toBe(false);
  });

  it('a Sunday 02:30 slot on the fall-back day is the first 02:30, once', () => {
    const queue = { timeZone: 'Europe/Berlin', slots: [{ day: 'sunday', time: '02:30' }] as QueueSlot[] };
    const found = slotInstants(queue, Date.parse('2026-10-24T00:00:00Z'), Date.parse('2026-10-26T00:00:00Z'));
    expect(found).toEqual([{ at: Date.parse('2026-10-25T00:30:00Z'), local: '2026-10-25T02:30' }]);
  });

  it('a Monday 09:00 slot in Kolkata is Monday 03:30 UTC; in Chatham it is Sunday in UTC', () => {
    const monday = [{ day: 'monday', time: '09:00' }] as QueueSlot[];
    const now = new Date('2026-12-01T00:00:00Z'); // a Tuesday
    expect(freeSlots({ timeZone: 'Asia/Kolkata', slots: monday }, now, new Set(), 1)[0]).toEqual({
      at: Date.parse('2026-12-07T03:30:00Z'),
      local: '2026-12-07T09:00',
    });
    expect(freeSlots({ timeZone: 'Pacific/Chatham', slots: monday }, now, new Set(), 1)[0]).toEqual({
      at: Date.parse('2026-12-06T19:15:00Z'),
      local: '2026-12-07T09:00',
    });
  });

  it('skips taken slots, and a slot less than a minute ahead', () => {
    const queue = { timeZone: 'UTC', slots: [{ day: 'tuesday', time: '10:00' }, { day: 'tuesday', time: '11:00' }] as QueueSlot[] };
    const now = new Date('2026-12-01T09:59:30Z');
    const taken = new Set([Date.parse('2026-12-01T11:00:00Z')]);
    expect(freeSlots(queue, now, taken, 2).map((slot) => new Date(slot.at).toISOString())).toEqual([
      '2026-12-08T10:00:00.000Z',
      '2026-12-08T11:00:00.000Z',
    ]);
  });

  it('queue_empty without slots, queue_full when every slot within 30 days is taken', () => {
    const now = new Date('2026-12-01T00:00:00Z');
    expect(nextFreeSlot({ timeZone: 'UTC', slots: [] }, now, new Set())).toEqual({ ok: false, reason: 'queue_empty' });
    const queue = { timeZone: 'UTC', slots: [{ day: 'friday', time: '08:00' }] as QueueSlot[] };
    const all = new Set(freeSlots(queue, now, new Set(), 50).map((slot) => slot.at));
    expect(all.size).toBe(4);
    expect(nextFreeSlot(queue, now, all)).toEqual({ ok: false, reason: 'queue_full' });
  });
});

describe('PUT queue body', () => {
  it('accepts an IANA zone and slots, sorted and without duplicates', () => {
    expect(
      parseQueueInput({
        timeZone: 'europe/berlin',
        slots: [{ day: 'friday', time: '17:00' }, { day: 'monday', time: '09:00' }, { day: 'friday', time: '17:00' }],
      }),
    ).toEqual({ ok: true, timeZone: 'Europe/Berlin', slots: [{ day: 'monday', time: '09:00' }, { day: 'friday', time: '17:00' }] });
  });

  it.each([
    [{ timeZone: 'Mars/Olympus', slots: [] }, 'invalid_time_zone', 'timeZone'],
    [{ timeZone: '+05:30', slots: [] }, 'invalid_time_zone', 'timeZone'],
    [{ timeZone: 'x'.repeat(10_000), slots: [] }, 'invalid_time_zone', 'timeZone'],
    [{ slots: [] }, 'invalid_time_zone', 'timeZone'],
    [{ timeZone: 'UTC', slots: [{ day: 'mon', time: '09:00' }] }, 'invalid_slot', 'slots[0].day'],
    [{ timeZone: 'UTC', slots: [{ day: 'monday', time: '24:00' }] }, 'invalid_slot', 'slots[0].time'],
    [{ timeZone: 'UTC', slots: [{ day: 'monday', time: '9:00' }] }, 'invalid_slot', 'slots[0].time'],
    [{ timeZone: 'UTC', slots: 'monday' }, 'invalid_slot', 'slots'],
    [{ timeZone: 'UTC', slots: Array.from({ length: 101 }, () => ({ day: 'monday', time: '09:00' })) }, 'invalid_slot', 'slots'],
    [{ timeZone: 'UTC', slots: [], extra: 1 }, 'invalid_body', 'extra'],
    [[], 'invalid_body', 'body'],
  ])('refuses %j with %s', (body, code, param) => {
    expect(parseQueueInput(body)).toMatchObject({ ok: false, code, param });
  });

  it('knows the zones of the tests', () => {
    for (const name of ['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kolkata', 'Pacific/Chatham', 'America/St_Johns', 'UTC']) {
      expect(canonicalTimeZone(name)).toBe(name);
    }
  });
});

describe('property: every slot found is free, in the future, within 30 days, on a slot local time', () => {
  const ZONES = ['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kolkata', 'Pacific/Chatham', 'America/St_Johns', 'UTC', 'Asia/Kathmandu'];
  const slotArb = fc.record({
    day: fc.constantFrom(...QUEUE_DAYS),
    time: fc.tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 })).map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`),
  });

  it('holds for random zones, slots, times and taken sets', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ZONES),
        fc.array(slotArb, { minLength: 1, maxLength: 8 }),
        fc.integer({ min: Date.parse('2025-01-01T00:00:00Z'), max: Date.parse('2028-01-01T00:00:00Z') }),
        fc.array(fc.nat({ max: 40 }), { maxLength: 20 }),
        fc.integer({ min: 1, max: 12 }),
        (timeZone, slots, nowMs, takenPicks, count) => {
          const queue = { timeZone, slots };
          const now = new Date(nowMs);
          const all = freeSlots(queue, now, new Set(), 50);
          const taken = new Set(takenPicks.flatMap((pick) => (all[pick] ? [all[pick].at] : [])));
          const found = freeSlots(queue, now, taken, count);
          let previous = -Infinity;
          for (const slot of found) {
            expect(taken.has(slot.at)).toBe(false);
            expect(slot.at).toBeGreaterThanOrEqual(nowMs + 60_000);
            expect(slot.at).toBeLessThanOrEqual(nowMs + 30 * 86_400_000);
            expect(slot.at).toBeGreaterThan(previous);
            previous = slot.at;
            // On a slot's local time: some slot's wall-clock time on its weekday, near this instant's date, resolves to it.
            const dayStart = Math.floor(Date.parse(`${localLabel(slot.at, timeZone)}:00Z`) / 86_400_000) * 86_400_000;
            const matches = [dayStart, dayStart - 86_400_000].some((day) =>
              slots.some((s) => {
                const weekday = QUEUE_DAYS[(new Date(day).getUTCDay() + 6) % 7];
                const [h, m] = s.time.split(':').map(Number);
                return s.day === weekday && localToInstant(day + (h! * 60 + m!) * 60_000, timeZone) === slot.at;
              }),
            );
            expect(matches).toBe(true);
          }
          // Earliest: no free slot instant is skipped before the last one found.
          const expected = all.filter((slot) => !taken.has(slot.at)).slice(0, count);
          expect(found).toEqual(expected);
        },
      ),
      { numRuns: 200 },
    );
  });
});
