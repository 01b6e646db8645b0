/** GET /settings/calendar: a week of the person's scheduled and published posts in their time zone. */
import { calendarRoute } from '../../lib/web/calendar-routes.js';
import { signedInHandler } from '../../lib/web/web-handler.js';

export const handler = signedInHandler(calendarRoute);
