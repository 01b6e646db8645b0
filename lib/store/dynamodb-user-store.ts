/** Users in the directory table (item USER#<id>/PROFILE; layout in lib/store/tables.ts). */
import * as v from 'valibot';
import type { User } from '../domain/model.js';
import type { TimeZoneWriter, UserAdmin, UserReader } from '../use-cases/ports/users.js';
import { DirectoryTable, directoryKeys, readDirectoryItem, type DirectoryTableOptions, type Item } from './directory-table.js';
import { stringList } from './item-schema.js';

const USER_ITEM = v.object({
  id: v.string(),
  email: v.string(),
  active: v.boolean(),
  monthlyPostAllowance: v.number(),
  workspaceIds: stringList,
  createdAt: v.string(),
  timeZone: v.optional(v.string()),
});

export function toUser(item: Item): User {
  const { timeZone, ...user } = readDirectoryItem(USER_ITEM, item);
  return timeZone === undefined ? user : { ...user, timeZone };
}

export class DynamoDbUserStore implements UserReader, UserAdmin, TimeZoneWriter {
  private readonly table: DirectoryTable;

  constructor(options: DirectoryTableOptions | DirectoryTable = {}) {
    this.table = DirectoryTable.from(options);
  }

  async getUser(userId: string): Promise<User | null> {
    const item = await this.table.getItem(directoryKeys.user(userId));
    return item ? toUser(item) : null;
  }

  async putUser(user: User): Promise<void> {
    await this.table.putNew('user', user.id, {
      ...directoryKeys.user(user.id),
      type: 'user',
      id: user.id,
      email: user.email,
      active: user.active,
      monthlyPostAllowance: user.monthlyPostAllowance,
      workspaceIds: user.workspaceIds,
      createdAt: user.createdAt,
    });
  }

  async updateUser(userId: string, changes: { active?: boolean; monthlyPostAllowance?: number }): Promise<User> {
    const item = await this.table.updateExisting('user', userId, directoryKeys.user(userId), {
      active: changes.active,
      monthlyPostAllowance: changes.monthlyPostAllowance,
    });
    return toUser(item);
  }

  /** The person's time zone for the settings pages: one UpdateItem of the user's item, which must exist. */
  async setTimeZone(userId: string, timeZone: string): Promise<void> {
    await this.table.updateExisting('user', userId, directoryKeys.user(userId), { timeZone });
  }
}
