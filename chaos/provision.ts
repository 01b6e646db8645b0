/**
 * The customers of `npm run chaos`, one per cycle, written into the running stack of DATA_DIR the
 * way the admin CLI writes (admin/admin-target.ts): each a user with a known allowance, a
 * workspace, an `ok` and a `flaky` account on each platform, an API key and one image in the media
 * library. Run as a child process (the SDK clients must see that stack's endpoints); prints one
 * JSON array of CHAOS_CUSTOMERS ChaosCustomer objects on stdout.
 */
import { resolve } from 'node:path';
import { deflateSync } from 'node:zlib';
import { ENV, requireEnv } from '../lib/config.js';
import { applyStackEnvironment, readStackFile } from '../admin/admin-target.js';
// Types only: the module itself is imported after the stack's environment is applied.
import type { Provisioning } from '../lib/use-cases/admin/provisioning.js';

export interface ChaosCustomer {
  userId: string;
  apiKey: string;
  allowance: number;
  accounts: { id: string; platform: 'x' | 'linkedin'; sandbox: 'ok' | 'flaky' }[];
  mediaUrl: string;
}

export const CHAOS_ALLOWANCE = 1000;

function crc32(bytes: Buffer): number {
  let crc = ~0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

/** A real 2x2 PNG, so both platforms' upload paths run as they do for a customer's image. */
function tinyPng(): Buffer {
  const chunk = (type: string, data: Buffer): Buffer => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), body.length + 4);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(2, 0);
  header.writeUInt32BE(2, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const rows = Buffer.from([0, 255, 0, 0, 0, 255, 0, 0, 0, 0, 255, 255, 255, 0]);
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', header), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}

async function main(): Promise<void> {
  const stack = await readStackFile(resolve(requireEnv('DATA_DIR')));
  applyStackEnvironment(stack, process.env);
  const [{ directoryStores }, { tokenCipherFromEnv }, { S3MediaObjectWriter }, provisioningModule] = await Promise.all([
    import('../lib/store/directory-stores.js'),
    import('../lib/store/token-cipher.js'),
    import('../lib/store/s3-media-object-writer.js'),
    import('../lib/use-cases/admin/provisioning.js'),
  ]);
  const provisioning = new provisioningModule.Provisioning({
    directory: directoryStores(),
    cipher: tokenCipherFromEnv(),
    media: { writer: new S3MediaObjectWriter(), baseUrl: requireEnv(ENV.mediaBaseUrl) },
  });
  const count = Number(process.env.CHAOS_CUSTOMERS ?? '1');
  const customers: ChaosCustomer[] = [];
  for (let index = 0; index < count; index++) customers.push(await provisionOne(provisioning, index));
  process.stdout.write(`${JSON.stringify(customers)}\n`);
}

async function provisionOne(provisioning: Provisioning, index: number): Promise<ChaosCustomer> {
  const user = await provisioning.createUser({ email: `chaos-${Date.now()}-${index}@example.com`, monthlyPostAllowance: CHAOS_ALLOWANCE, active: true });
  const workspace = await provisioning.createWorkspace({ userId: user.id, name: 'Chaos' });
  const accounts: ChaosCustomer['accounts'] = [];
  for (const platform of ['x', 'linkedin'] as const) {
    for (const sandbox of ['ok', 'flaky'] as const) {
      const account = await provisioning.connectAccount({
        workspaceId: workspace.id,
        platform,
        handle: platform === 'x' ? `@chaos_${sandbox}` : `chaos-${sandbox}`,
        name: `Chaos ${platform} ${sandbox}`,
        sandbox,
      });
      accounts.push({ id: account.id, platform, sandbox });
    }
  }
  const key = await provisioning.createApiKey({ userId: user.id });
  const media = await provisioning.addMedia({ userId: user.id, fileName: 'chaos.png', body: tinyPng(), contentType: 'image/png' });
  return { userId: user.id, apiKey: key.key, allowance: CHAOS_ALLOWANCE, accounts, mediaUrl: media.url };
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error('chaos provisioning failed:', error);
    process.exit(1);
  },
);
