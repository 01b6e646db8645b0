/**
 * Issue 19 item 10, read off the synthesized templates: every function that writes the directory
 * may write only the kinds of items its code writes (dynamodb:LeadingKeys on their partition key
 * prefixes, as the workers already were), the publish worker writes no counter but allowance
 * counters, and the function that starts a connect gets the platforms' client ids, never the
 * secret that holds their client secrets. The table of what each function may write is written
 * here from the code (lib/store/*), not read from infra/stacks/function-access.ts.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { API_ROUTES, ASSISTANT_ROUTES, DEFAULT_ROUTE, QUEUE_CONSUMERS, SETTINGS_ROUTES, SWEEPER, METRICS_COLLECTOR } from '../../functions/catalogue.js';
import { TABLE_ACTIONS } from '../../infra/constructs/bindings.js';
import { PLATFORM_CLIENT_ID_CONTEXT } from '../../infra/stacks/api-stack.js';
import { ENV } from '../../lib/config.js';
import { grantsOfRole, logicalId, synthesize, type CfnResource, type Synthesized, SYNTH_TEST_TIMEOUT_MS } from './synth.js';

// Some tests synthesize the app again with other settings: seconds of CPU each, minutes on a loaded machine.
vi.setConfig({ testTimeout: SYNTH_TEST_TIMEOUT_MS });

let s: Synthesized;
beforeAll(() => {
  s = synthesize({ bundle: false });
});
afterAll(() => s?.cleanup());

// The assistant server: one function per entry (the MCP entry serves three routes).
const ASSISTANT_FUNCTIONS = [...new Map([...ASSISTANT_ROUTES].reverse().map((route) => [route.entry, route.name])).values()];
const ALL_FUNCTIONS = [...API_ROUTES, ...QUEUE_CONSUMERS, SWEEPER, METRICS_COLLECTOR, DEFAULT_ROUTE, ...SETTINGS_ROUTES].map((entry) => entry.name).concat(ASSISTANT_FUNCTIONS);
const WRITES = TABLE_ACTIONS.readWrite.filter((action) => !TABLE_ACTIONS.read.includes(action));

/** The directory items each writing function writes, by partition key prefix (lib/store/tables.ts layout). */
const DIRECTORY_WRITES: Record<string, string[]> = {
  PublishWorker: ['ACCOUNT#'],
  PlatformDeletionWorker: ['ACCOUNT#'],
  // Post metrics: the refresh and the collector refresh an account's tokens like the workers.
  MetricsCollector: ['ACCOUNT#'],
  RefreshPostMetrics: ['ACCOUNT#'],
  // Marks an account expiring (its token cannot be refreshed and ends within 7 days), and fails
  // an API upload never completed (its media item alone).
  Sweeper: ['ACCOUNT#', 'MEDIA#'],
  // First sign-in: the identity, the user's profile and first workspace (both items).
  SettingsAuthCallback: ['IDENTITY#', 'USER#', 'WORKSPACE#'],
  // The key, and the count of active keys on the user's profile (the cap).
  SettingsCreateKey: ['KEY#', 'USER#'],
  SettingsRevokeKey: ['KEY#', 'USER#'],
  // The workspace's two items (USER#/WORKSPACE# and WORKSPACE#) and the profile's workspace list.
  SettingsCreateWorkspace: ['USER#', 'WORKSPACE#'],
  SettingsRenameWorkspace: ['USER#', 'WORKSPACE#'],
  // The account, its credentials and the connection guard.
  SettingsDisconnectAccount: ['ACCOUNT#', 'CONNECTION#'],
  SettingsConnectXCallback: ['ACCOUNT#', 'CONNECTION#'],
  SettingsConnectLinkedinCallback: ['ACCOUNT#', 'CONNECTION#'],
  // The library item, and the bytes the user stores on the profile (the quota).
  SettingsMediaRegister: ['MEDIA#', 'USER#'],
  SettingsMediaDelete: ['MEDIA#', 'USER#'],
  SettingsMediaAltText: ['MEDIA#'],
  SettingsMediaImport: ['MEDIA#'],
  // A queue's settings, and the slot items a queued post takes and gives back (its create, change, cancel).
  PutQueue: ['QUEUE#'],
  // The settings form that sets an account's queue: the queue item only.
  SettingsSaveAccountQueue: ['QUEUE#'],
  // The person's time zone: their own user item only.
  SettingsSaveTimeZone: ['USER#'],
  CreatePosts: ['QUEUE#'],
  DeletePost: ['QUEUE#'],
  UpdatePost: ['QUEUE#'],
  PublishDraft: ['QUEUE#'],
  RetryPost: ['QUEUE#'],
  SettingsCancelPost: ['QUEUE#'],
  SettingsRetryPost: ['QUEUE#'],
  SettingsRefreshPostMetrics: ['ACCOUNT#'],
  // Also import_media's processing media item.
  Mcp: ['QUEUE#', 'MEDIA#'],
  // The API's media (lib/use-cases/media-files.ts): a pending item and its alt text write the item
  // alone; a complete and a delete also change the bytes the profile counts (the quota).
  CreateMedia: ['MEDIA#'],
  UpdateMedia: ['MEDIA#'],
  CompleteMedia: ['MEDIA#', 'USER#'],
  DeleteMedia: ['MEDIA#', 'USER#'],
  // An import settles its item and, ready, adds its bytes to the profile's count (the quota).
  MediaImportWorker: ['MEDIA#', 'USER#'],
};

function grantsOf(name: string) {
  const fn = s.service.api.functions.get(name);
  if (!fn?.role) throw new Error(`No function ${name}`);
  return grantsOfRole(s, logicalId(fn.role));
}

function writesTo(name: string, table: string) {
  return grantsOf(name).filter((grant) => grant.resources.includes(`table:${table}`) && grant.actions.some((action) => WRITES.includes(action)));
}

function environmentOf(synth: Synthesized, name: string): Record<string, unknown> {
  const fn = synth.service.api.functions.get(name)!;
  const props = (synth.apiJson.Resources[logicalId(fn)] as CfnResource).Properties as { Environment?: { Variables?: Record<string, unknown> } };
  return props.Environment?.Variables ?? {};
}

describe('directory writes', () => {
  it('every function that writes the directory is one whose writes are written down here', () => {
    expect(ALL_FUNCTIONS.filter((name) => writesTo(name, 'directory').length > 0).sort()).toEqual(Object.keys(DIRECTORY_WRITES).sort());
  });

  it.each(Object.entries(DIRECTORY_WRITES))('%s may write only items under %j, and read anything', (name, prefixes) => {
    const writing = writesTo(name, 'directory');
    expect(writing.length).toBeGreaterThan(0);
    for (const grant of writing) {
      expect(grant.resources).toEqual(['table:directory']);
      expect(grant.conditions).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': prefixes.map((prefix) => `${prefix}*`) } });
    }
    expect(writing.flatMap((grant) => grant.actions).sort()).toEqual([...WRITES].sort());
  });
});

describe('webhook writes of the sweeper', () => {
  it('stamps delivery items (ENDPOINT#) and writes nothing else of the webhooks table (endpoints, events)', () => {
    const writing = writesTo('Sweeper', 'webhooks');
    expect(writing.length).toBeGreaterThan(0);
    for (const grant of writing) {
      expect(grant.conditions).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['ENDPOINT#*'] } });
    }
  });
});

describe('counter writes of the publish worker', () => {
  it('gives allowance units back (ALLOWANCE#) and writes no other counter (rate limits, last use)', () => {
    const writing = writesTo('PublishWorker', 'counters');
    expect(writing.length).toBeGreaterThan(0);
    for (const grant of writing) {
      expect(grant.conditions).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['ALLOWANCE#*'] } });
    }
  });
});

describe('starting a connect', () => {
  it('gets the platforms\' client ids as plain values, and neither the platform credentials secret nor a grant on it', () => {
    const env = environmentOf(s, 'SettingsConnectStart');
    expect(env).not.toHaveProperty(ENV.platformCredentialsSecretId);
    expect(env).not.toHaveProperty(ENV.xClientSecret);
    expect(env).not.toHaveProperty(ENV.linkedinClientSecret);
    expect(grantsOf('SettingsConnectStart').filter((grant) => grant.resources.includes('secret:platform'))).toEqual([]);
    expect(grantsOf('SettingsConnectStart').flatMap((grant) => grant.actions)).not.toContain('secretsmanager:GetSecretValue');
    // Not given at deploy: bound empty, and connecting answers that the platform is not configured.
    expect(env[ENV.xClientId]).toBe('');
    expect(env[ENV.linkedinClientId]).toBe('');
  });

  it('takes them from the deploy-time context, and no other function gets them', () => {
    const given = synthesize({ bundle: false, context: { [PLATFORM_CLIENT_ID_CONTEXT.x]: 'x-app-client', [PLATFORM_CLIENT_ID_CONTEXT.linkedin]: '86abc123' } });
    try {
      expect(environmentOf(given, 'SettingsConnectStart')).toMatchObject({ [ENV.xClientId]: 'x-app-client', [ENV.linkedinClientId]: '86abc123' });
      const others = ALL_FUNCTIONS.filter((name) => name !== 'SettingsConnectStart' && ENV.xClientId in environmentOf(given, name));
      expect(others).toEqual([]);
    } finally {
      given.cleanup();
    }
  });

  it('the callbacks that exchange the code still read the secret (client id and secret)', () => {
    for (const name of ['SettingsConnectXCallback', 'SettingsConnectLinkedinCallback']) {
      expect(grantsOf(name).some((grant) => grant.resources.includes('secret:platform'))).toBe(true);
    }
  });
});
