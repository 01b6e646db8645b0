/** GET /settings: the Overview (plan, allowance this cycle, counts of keys, accounts and posts). */
import { DynamoDbAccountStore } from '../../lib/store/dynamodb-account-store.js';
import { DynamoDbApiKeyStore } from '../../lib/store/dynamodb-api-key-store.js';
import { DynamoDbPostCounter } from '../../lib/store/dynamodb-post-count.js';
import { GetOverview } from '../../lib/use-cases/settings/overview.js';
import { overviewPage } from '../../lib/web/pages/overview-page.js';
import { webClock } from '../../lib/web/web-dependencies.js';
import { signedInHandler } from '../../lib/web/web-handler.js';

let overview: GetOverview | undefined;

export const handler = signedInHandler(async (_request, signedIn) => {
  overview ??= new GetOverview({ keys: new DynamoDbApiKeyStore(), accounts: new DynamoDbAccountStore(), posts: new DynamoDbPostCounter(), clock: webClock });
  return { kind: 'page', title: 'Overview', body: overviewPage(await overview.execute(signedIn.caller)) };
});
