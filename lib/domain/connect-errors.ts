/**
 * Why connecting an account did not work, in words a person can act on. The settings pages show
 * `message` (never a 5xx): each code is one situation, and the message says what to do next.
 */
export type ConnectErrorCode =
  | 'connect_refused'
  | 'connect_state_invalid'
  | 'connect_expired'
  | 'connect_failed'
  | 'connect_no_pages'
  | 'connect_wrong_identity'
  | 'workspace_not_found'
  | 'account_not_found'
  | 'connect_not_needed';

export class ConnectError extends Error {
  constructor(
    readonly code: ConnectErrorCode,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'ConnectError';
  }
}

export function platformDisplayName(platform: string): string {
  return platform === 'x' ? 'X' : platform === 'linkedin' ? 'LinkedIn' : platform;
}
