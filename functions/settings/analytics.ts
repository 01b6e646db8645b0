/**
 * GET /settings/analytics?days=7|30|90: the signed-in workspace's analytics through the API's own
 * GET /analytics use case (same scoping, same sums), with the accounts' names beside them.
 */
import { DynamoDbAccountStore } from '../../lib/store/dynamodb-account-store.js';
import { DynamoDbPostMetrics } from '../../lib/store/dynamodb-post-metrics.js';
import { GetAnalytics } from '../../lib/use-cases/post-metrics.js';
import { analyticsPage, ANALYTICS_PERIODS, type AnalyticsPeriod } from '../../lib/web/pages/analytics-page.js';
import { directoryTable } from '../../lib/web/web-dependencies.js';
import { signedInHandler } from '../../lib/web/web-handler.js';
import { badRequest } from '../../lib/web/web-errors.js';

const DAY_MS = 86_400_000;
const DEFAULT_PERIOD: AnalyticsPeriod = 30;

let analytics: GetAnalytics | undefined;
let accounts: DynamoDbAccountStore | undefined;

function periodOf(raw: string | undefined): AnalyticsPeriod {
  if (raw === undefined || raw === '') return DEFAULT_PERIOD;
  const period = ANALYTICS_PERIODS.find((choice) => String(choice) === raw);
  if (period === undefined) throw badRequest(`The period must be ${ANALYTICS_PERIODS.join(', ')} days. Choose one on the Analytics page.`);
  return period;
}

export const handler = signedInHandler(async (request, signedIn) => {
  const days = periodOf(request.query.days);
  // Whole UTC days ending with today, so the chart's bars are days and today's posts count.
  const now = new Date();
  const to = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) + DAY_MS;
  analytics ??= new GetAnalytics({ store: new DynamoDbPostMetrics() });
  const view = await analytics.execute(signedIn.caller, { from: new Date(to - days * DAY_MS).toISOString(), to: new Date(to).toISOString() });
  accounts ??= new DynamoDbAccountStore(directoryTable());
  const byId = await accounts.getAccounts(view.byAccount.map((row) => row.accountId));
  return { kind: 'page', title: 'Analytics', body: analyticsPage({ analytics: view, days, accounts: byId }) };
});
