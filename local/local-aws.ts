/**
 * The few facts every part of the local stack shares: one region, one (fake) account, dummy
 * credentials, and how `*.localhost` host names resolve.
 */
import dns from 'node:dns';

export const LOCAL_REGION = 'us-east-1';
/** fauxqs puts this account id in every queue URL and ARN. */
export const LOCAL_ACCOUNT_ID = '000000000000';
/** Nothing local checks signatures; the SDK only needs something to sign with. */
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;
type Lookup = (hostname: string, options: unknown, callback: LookupCallback) => void;

let installed = false;

/**
 * fauxqs names its queues like AWS does, `http://sqs.us-east-1.localhost:<port>/000000000000/publish`,
 * and the SQS client sends each request to the host of its QueueUrl. RFC 6761 reserves `localhost`
 * and every name under it for the loopback address, but the C resolver here does not apply that
 * to sub-domains, so this process applies it itself: names ending in `.localhost` resolve to
 * 127.0.0.1, every other name resolves as before. The handlers stay unaware: they use the queue
 * URLs from their environment, exactly as on AWS.
 */
export function resolveLocalhostSubdomains(): void {
  if (installed) return;
  installed = true;
  const original = dns.lookup as unknown as Lookup;
  const patched: Lookup = (hostname, options, callback) => {
    const cb = typeof options === 'function' ? (options as LookupCallback) : callback;
    const opts = typeof options === 'function' ? {} : options;
    if (typeof hostname === 'string' && hostname.toLowerCase().endsWith('.localhost')) {
      const all = typeof opts === 'object' && opts !== null && (opts as { all?: boolean }).all === true;
      process.nextTick(() => (all ? cb(null, [{ address: '127.0.0.1', family: 4 }]) : cb(null, '127.0.0.1', 4)));
      return;
    }
    original(hostname, options, callback);
  };
  (dns as unknown as { lookup: Lookup }).lookup = patched;
}
