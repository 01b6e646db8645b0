/**
 * The time zone a person reads the settings pages in (beyond-v2.md "Queues and time zones"): the
 * one they chose, else their browser's (sent by the pages' script), else UTC. Stored on the
 * person's own user item, which every signed-in page already reads (one GetItem).
 */
import { DEFAULT_TIME_ZONE } from '../../domain/local-time.js';
import type { User } from '../../domain/model.js';
import { canonicalTimeZone } from '../../domain/queue.js';
import type { TimeZoneWriter } from '../ports/users.js';

export type TimeZoneSource = 'chosen' | 'browser' | 'default';

export interface PersonTimeZone {
  timeZone: string;
  source: TimeZoneSource;
}

/** The zone a page is rendered in: a chosen one the tz data still knows, the browser's, or UTC. */
export function personTimeZone(user: Pick<User, 'timeZone'>, browserZone: string | null): PersonTimeZone {
  const chosen = user.timeZone === undefined ? null : canonicalTimeZone(user.timeZone);
  if (chosen) return { timeZone: chosen, source: 'chosen' };
  const browser = browserZone === null ? null : canonicalTimeZone(browserZone);
  if (browser) return { timeZone: browser, source: 'browser' };
  return { timeZone: DEFAULT_TIME_ZONE, source: 'default' };
}

export class InvalidTimeZoneError extends Error {
  readonly code = 'invalid_time_zone';
  constructor(value: string) {
    super(`“${value.slice(0, 64)}” is not a time zone we know. Choose one from the list, such as Europe/Berlin.`);
    this.name = 'InvalidTimeZoneError';
  }
}

export class ChooseTimeZone {
  constructor(private readonly users: TimeZoneWriter) {}

  /** Saves the zone (as canonicalTimeZone spells it) on the person; an unknown one changes nothing. */
  async execute(userId: string, value: string): Promise<string> {
    const timeZone = canonicalTimeZone(value.trim());
    if (!timeZone) throw new InvalidTimeZoneError(value);
    await this.users.setTimeZone(userId, timeZone);
    return timeZone;
  }
}
