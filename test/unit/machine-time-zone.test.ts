/**
 * The service never depends on the machine's own time zone (beyond-v2.md, "Queues and time zones"):
 * the queue's local times come from the IANA zones through Intl, never from Date's local-time
 * methods. This file runs the same computations with the process's TZ set to UTC and then to two
 * zones far from it (and from each other), and expects identical answers; it first checks that
 * setting TZ really moved the process's own clock, so it cannot pass by not changing anything.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { freeSlots, isSlotInstant, localLabel, localToInstant, offsetAt, slotInstants, type QueueSlot } from '../../lib/domain/queue.js';

const ZONES = ['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kolkata', 'Pacific/Chatham', 'America/St_Johns'];
const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
const SLOTS: QueueSlot[] = DAYS.flatMap((day) => ['00:30', '02:30', '09:00', '23:45'].map((time) => ({ day, time })));
// Weeks around the transitions of both hemispheres in 2026.
const NOWS = ['2026-03-27T12:00:00Z', '2026-04-03T12:00:00Z', '2026-10-02T12:00:00Z', '2026-10-23T12:00:00Z', '2026-10-30T12:00:00Z'].map((iso) => new Date(iso));

/** Everything the queue computes from zones, for every zone and week above. */
function computeAll(): unknown {
  return ZONES.map((timeZone) => {
    const queue = { timeZone, slots: SLOTS };
    return NOWS.map((now) => {
      const week = slotInstants(queue, now.getTime(), now.getTime() + 7 * 86_400_000);
      return {
        week: week.map((slot) => [slot.at, slot.local]),
        free: freeSlots(queue, now, new Set(week.slice(0, 3).map((slot) => slot.at)), 5).map((slot) => slot.at),
        labels: week.map((slot) => localLabel(slot.at, timeZone)),
        offsets: week.map((slot) => offsetAt(slot.at, timeZone)),
        back: week.map((slot) => localToInstant(Date.parse(`${slot.local}:00.000Z`), timeZone)),
        isSlot: week.map((slot) => [isSlotInstant(queue, slot.at), isSlotInstant(queue, slot.at + 60_000)]),
      };
    });
  });
}

const machineZone = process.env.TZ;
afterAll(() => {
  if (machineZone === undefined) delete process.env.TZ;
  else process.env.TZ = machineZone;
});

describe('whatever TZ the machine runs in', () => {
  it('the queue finds the same slots, labels and instants under TZ=UTC, Pacific/Kiritimati and America/Adak', () => {
    process.env.TZ = 'UTC';
    const january = new Date('2026-01-15T12:00:00Z');
    expect(january.getTimezoneOffset()).toBe(0);
    const underUtc = computeAll();

    for (const zone of ['Pacific/Kiritimati', 'America/Adak']) {
      process.env.TZ = zone;
      // The process's own clock moved (+14 h, -10 h): the comparison below is not vacuous.
      expect(january.getTimezoneOffset(), zone).not.toBe(0);
      expect(computeAll(), zone).toEqual(underUtc);
    }
  });
});
