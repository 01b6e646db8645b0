/**
 * The settings Calendar and the person's time zone: GET /settings/calendar?week=YYYY-MM-DD (any
 * day of the week; none is this week in the person's zone) and POST /settings/time-zone.
 */
import { localDate, parseWeek } from '../domain/local-time.js';
import { knownTimeZones } from '../domain/queue.js';
import { DynamoDbAccountStore } from '../store/dynamodb-account-store.js';
import { DynamoDbPostStore } from '../store/dynamodb-post-store.js';
import { ReadCalendar } from '../use-cases/settings/calendar.js';
import { ChooseTimeZone, InvalidTimeZoneError } from '../use-cases/settings/time-zone.js';
import { calendarPage } from './pages/calendar-page.js';
import { directoryTable, userStore, webClock } from './web-dependencies.js';
import { badRequest } from './web-errors.js';
import type { SignedInRoute } from './web-handler.js';
import type { SignedIn, WebRequest, WebResult } from './web-request.js';

let calendar: ReadCalendar | undefined;
let accounts: DynamoDbAccountStore | undefined;

const NOTICES: Readonly<Record<string, string>> = { 'time-zone': 'Time zone saved: every time on these pages is shown in it.' };

async function renderCalendar(request: WebRequest, signedIn: SignedIn, refused?: { typedZone: string; message: string }): Promise<WebResult> {
  const zone = signedIn.timeZone.timeZone;
  const today = localDate(webClock.now().getTime(), zone);
  let date = today;
  const raw = request.query.week ?? (refused ? request.form.week : undefined);
  if (raw !== undefined && raw !== '') {
    const verdict = parseWeek(raw);
    if (!verdict.ok) {
      // An edited link: the page says why. A refused zone form keeps to this week instead.
      if (!refused) throw badRequest(`${verdict.message} Start again from the Calendar.`);
    } else {
      date = verdict.date;
    }
  }
  calendar ??= new ReadCalendar(new DynamoDbPostStore());
  const view = await calendar.week(signedIn.caller, date, zone);
  accounts ??= new DynamoDbAccountStore(directoryTable());
  const byId = await accounts.getAccounts([...new Set(view.posts.map((entry) => entry.post.accountId))]);
  const done = request.query.done ?? '';
  const notice = refused ? { text: refused.message, error: true } : Object.hasOwn(NOTICES, done) ? { text: NOTICES[done]! } : undefined;
  return {
    kind: 'page',
    ...(refused ? { status: 400 } : {}),
    title: 'Calendar',
    body: calendarPage({
      view,
      accounts: byId,
      timeZone: signedIn.timeZone,
      zones: knownTimeZones(),
      today,
      csrfToken: signedIn.session.csrfToken,
      ...(notice ? { notice } : {}),
      ...(refused ? { typedZone: refused.typedZone } : {}),
    }),
  };
}

export const calendarRoute: SignedInRoute = (request, signedIn) => renderCalendar(request, signedIn);

let chooseTimeZone: ChooseTimeZone | undefined;

export const saveTimeZoneRoute: SignedInRoute = async (request, signedIn) => {
  const typed = request.form.timeZone ?? '';
  chooseTimeZone ??= new ChooseTimeZone(userStore());
  try {
    await chooseTimeZone.execute(signedIn.user.id, typed);
    const week = parseWeek(request.form.week ?? '');
    return { kind: 'redirect', location: `/settings/calendar?${week.ok ? `week=${week.date}&` : ''}done=time-zone#time-zone` };
  } catch (error) {
    if (!(error instanceof InvalidTimeZoneError)) throw error;
    return renderCalendar(request, signedIn, { typedZone: typed.slice(0, 64), message: error.message });
  }
};
