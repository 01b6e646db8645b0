/** GET /settings: the Overview (plan, allowance this cycle, counts of keys, accounts and posts; sign out of other browsers). */
import { DynamoDbAccountStore } from '../../lib/store/dynamodb-account-store.js';
import { DynamoDbApiKeyStore } from '../../lib/store/dynamodb-api-key-store.js';
import { DynamoDbPostCounter } from '../../lib/store/dynamodb-post-count.js';
import { GetOverview } from '../../lib/use-cases/settings/overview.js';
import { overviewPage } from '../../lib/web/pages/overview-page.js';
import { webClock } from '../../lib/web/web-dependencies.js';
import { signedInHandler } from '../../lib/web/web-handler.js';

let overview: GetOverview | undefined;

export const handler = signedInHandler(async (request, signedIn) => {
  overview ??= new GetOverview({ keys: new DynamoDbApiKeyStore(), accounts: new DynamoDbAccountStore(), posts: new DynamoDbPostCounter(), clock: webClock });
  const ended = /^\d{1,4}$/.test(request.query.otherSessionsEnded ?? '') ? Number(request.query.otherSessionsEnded) : null;
  return { kind: 'page', title: 'Overview', body: overviewPage(await overview.execute(signedIn.caller), { csrfToken: signedIn.session.csrfToken, otherSessionsEnded: ended }) };
});
