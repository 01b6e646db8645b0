/** POST /settings/time-zone: the IANA zone every time on the person's settings pages is shown in. */
import { saveTimeZoneRoute } from '../../lib/web/calendar-routes.js';
import { signedInHandler } from '../../lib/web/web-handler.js';

export const handler = signedInHandler(saveTimeZoneRoute);
