/**
 * How long a settings session lives (README "Security rules"; docs/security.md):
 *
 * - absolute: 8 hours after sign-in, however active (SESSION_SECONDS);
 * - idle: 30 minutes after the last page the person opened, sliding. Thirty minutes is NIST SP
 *   800-63B's inactivity limit for AAL2 and OWASP ASVS's for sessions that reach secrets: a page
 *   here shows a new API key once, connects accounts that post in the person's name and lets an
 *   assistant act for them, so a browser left open on a shared machine should not stay signed in
 *   for the rest of the working day. A settings visit is a few pages a few minutes apart, so the
 *   limit is not felt by someone using it.
 *
 * Sliding costs a write, so a session is pushed back at most once every IDLE_TOUCH_SECONDS: its
 * idle end is then between 25 and 30 minutes after the last page, never later.
 */
export const SESSION_SECONDS = 8 * 60 * 60;
export const SESSION_IDLE_SECONDS = 30 * 60;
export const IDLE_TOUCH_SECONDS = 5 * 60;

export interface SessionTimes {
  /** The absolute end. */
  expiresAt: Date;
  /** The idle end: pushed back as the person uses settings, never past expiresAt. */
  idleExpiresAt: Date;
}

export function sessionTimesAt(signedInAt: Date): SessionTimes {
  const expiresAt = new Date(signedInAt.getTime() + SESSION_SECONDS * 1000);
  return { expiresAt, idleExpiresAt: new Date(Math.min(expiresAt.getTime(), signedInAt.getTime() + SESSION_IDLE_SECONDS * 1000)) };
}

export function sessionIsLive(session: SessionTimes, now: Date): boolean {
  return now.getTime() < session.expiresAt.getTime() && now.getTime() < session.idleExpiresAt.getTime();
}

/** The new idle end when this request should push it back, or null when it was pushed back recently. */
export function idleEndToExtend(session: SessionTimes, now: Date): Date | null {
  const extended = Math.min(session.expiresAt.getTime(), now.getTime() + SESSION_IDLE_SECONDS * 1000);
  return extended - session.idleExpiresAt.getTime() >= IDLE_TOUCH_SECONDS * 1000 ? new Date(extended) : null;
}
