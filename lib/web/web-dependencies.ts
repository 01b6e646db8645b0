/**
 * What the settings functions share, built once per cold start on first use (importing a function
 * module reads no configuration), each piece reading only its own settings so a function needs
 * only the variables its grants bind (infra/stacks/function-access.ts).
 */
import { ENV, requireEnv } from '../config.js';
import { DirectoryTable } from '../store/directory-table.js';
import { DynamoDbUserStore } from '../store/dynamodb-user-store.js';
import { systemClock, type Clock } from '../use-cases/ports/clock.js';
import { DynamoDbSessionStore } from '../store/dynamodb-session-store.js';

export interface WebSettings {
  /** `https://host` on AWS, `http://127.0.0.1:<port>` locally: where the pages are served. */
  origin: string;
  /** Cookies carry Secure whenever the app is served over https. */
  secure: boolean;
}

let settings: WebSettings | undefined;
let sessions: DynamoDbSessionStore | undefined;
let directory: DirectoryTable | undefined;
let users: DynamoDbUserStore | undefined;

export function webSettings(): WebSettings {
  if (!settings) {
    const base = new URL(requireEnv(ENV.settingsBaseUrl));
    settings = { origin: base.origin, secure: base.protocol === 'https:' };
  }
  return settings;
}

export function sessionStore(): DynamoDbSessionStore {
  sessions ??= new DynamoDbSessionStore();
  return sessions;
}

/** One handle on the directory table for every store of a function. */
export function directoryTable(): DirectoryTable {
  directory ??= new DirectoryTable();
  return directory;
}

export function userStore(): DynamoDbUserStore {
  users ??= new DynamoDbUserStore(directoryTable());
  return users;
}

export const webClock: Clock = systemClock;
