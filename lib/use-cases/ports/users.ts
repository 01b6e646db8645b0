import type { User } from '../../domain/model.js';

export interface UserReader {
  getUser(userId: string): Promise<User | null>;
}

/** Writes of the account-settings stand-in (admin CLI, demo seed, tests' provisioning). */
export interface UserAdmin {
  putUser(user: User): Promise<void>;
  updateUser(userId: string, changes: { active?: boolean; monthlyPostAllowance?: number }): Promise<User>;
}

/** The settings pages' time zone a person chooses (lib/use-cases/settings/time-zone.ts). */
export interface TimeZoneWriter {
  setTimeZone(userId: string, timeZone: string): Promise<void>;
}
