/**
 * The demo data of a fresh local stack: one active user with a workspace, accounts on linkedin,
 * x and instagram (the last one to show an account that is listed but cannot be posted to), and
 * an API key with all four scopes. Made through the same provisioning module as the admin CLI and
 * the tests, so the demo records are exactly what real provisioning makes.
 */
import { Provisioning, type ProvisioningDeps } from '../lib/use-cases/admin/provisioning.js';

export const DEMO_MONTHLY_POST_ALLOWANCE = 1000;

export interface DemoSeed {
  userId: string;
  workspaceId: string;
  accountIds: { linkedin: string; x: string; instagram: string };
  /** The full key (ak_<id>_<secret>): shown once, only its hash is stored. */
  apiKey: string;
}

export async function seedDemo(deps: ProvisioningDeps | Provisioning): Promise<DemoSeed> {
  const provisioning = deps instanceof Provisioning ? deps : new Provisioning(deps);
  const user = await provisioning.createUser({
    email: 'demo@example.com',
    monthlyPostAllowance: DEMO_MONTHLY_POST_ALLOWANCE,
    active: true,
  });
  const workspace = await provisioning.createWorkspace({ userId: user.id, name: 'Demo workspace' });
  const connect = (platform: string, handle: string, name: string) =>
    provisioning.connectAccount({ workspaceId: workspace.id, platform, handle, name, sandbox: 'ok', tokenHealth: 'healthy' });
  const linkedin = await connect('linkedin', 'demo-person', 'Demo Person');
  const x = await connect('x', '@demo', 'Demo');
  const instagram = await connect('instagram', 'demo.photos', 'Demo Photos');
  const key = await provisioning.createApiKey({ userId: user.id });
  return {
    userId: user.id,
    workspaceId: workspace.id,
    accountIds: { linkedin: linkedin.id, x: x.id, instagram: instagram.id },
    apiKey: key.key,
  };
}
