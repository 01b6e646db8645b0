/** The sign-in use case as the sign-in, callback and sign-out functions build it (once per cold start). */
import { ENV, requireEnv } from '../config.js';
import { requestCounting } from '../http/api-pipeline.js';
import type { RateLimiter } from '../use-cases/ports/rate-limiter.js';
import { DynamoDbIdentityStore } from '../store/dynamodb-identity-store.js';
import { SignIn } from '../use-cases/settings/sign-in.js';
import { oidcRelyingParty } from './oidc-relying-party.js';
import { sessionStore, webClock, webSettings } from './web-dependencies.js';

let signIn: SignIn | undefined;
let identities: DynamoDbIdentityStore | undefined;

function freePlanMonthlyPosts(): number {
  const allowance = Number(requireEnv(ENV.freePlanMonthlyPosts));
  if (!Number.isInteger(allowance) || allowance < 0) throw new Error(`${ENV.freePlanMonthlyPosts} must be a whole number`);
  return allowance;
}

export function signInUseCase(): SignIn {
  signIn ??= new SignIn({
    sessions: sessionStore(),
    relyingParty: oidcRelyingParty(() => webSettings().origin),
    clock: webClock,
    identities: () => (identities ??= new DynamoDbIdentityStore()),
    freePlanMonthlyPosts,
  });
  return signIn;
}

let limiter: RateLimiter | undefined;

/**
 * Sign-in stores a transaction on every call: counted per client address against the API's
 * per-minute limit, like the unauthenticated API and OAuth requests (lib/http/api-pipeline.ts).
 */
export function signInLimiter(): RateLimiter {
  limiter ??= requestCounting().rateLimiter;
  return limiter;
}
