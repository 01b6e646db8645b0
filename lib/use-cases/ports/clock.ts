/** The one source of the time: use cases take a Clock; functions pass systemClock, tests a fixed one. */

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
