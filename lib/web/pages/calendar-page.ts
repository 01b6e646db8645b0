/**
 * Calendar: one week of the person's scheduled and published posts, Monday to Sunday, each day's
 * posts grouped by the local hour they are due or went out, in the person's time zone (with the
 * offset beside the hour on a day whose clocks change, so the two 02:00 hours of a 25-hour day are
 * told apart). Each post links to its row on the Posts page. Below, the form that chooses the zone.
 */
import { dayHours, hourOf, localTime, type LocalDay } from '../../domain/local-time.js';
import type { Account } from '../../domain/model.js';
import type { CalendarPost, CalendarWeekView } from '../../use-cases/settings/calendar.js';
import type { PersonTimeZone } from '../../use-cases/settings/time-zone.js';
import { html, type Html } from '../html.js';
import { timeElement } from './format.js';
import { csrfField } from './layout.js';

const STATUS_BADGE: Record<string, string> = { scheduled: 'warn', published: 'ok' };

/** A calendar date's own fields (not an instant), so formatted in UTC: "Sunday 29 March". */
const DAY_NAME = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', weekday: 'long', day: 'numeric', month: 'long' });
const LONG_DATE = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', day: 'numeric', month: 'long', year: 'numeric' });

function excerpt(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

function dayNote(day: LocalDay): string {
  const hours = dayHours(day);
  if (hours === 24) return '';
  return hours < 24 ? `${hours} hours: clocks go forward` : `${hours} hours: clocks go back`;
}

function postItem(entry: CalendarPost, account: Account | undefined, timeZone: string): Html {
  const { post } = entry;
  const clock = timeElement(entry.atMs, timeZone, localTime(entry.atMs, timeZone).label.slice(11, 16));
  return html`<li class="calendar-post" data-post-id="${post.id}">
  <span class="badge ${STATUS_BADGE[post.status] ?? 'muted'}">${post.status}</span>
  <a href="/settings/posts?status=${post.status}#${post.id}">${post.text === '' ? '(no text)' : excerpt(post.text)}</a>
  <span class="muted">${clock} · ${account ? `${account.name} (${post.platform})` : post.platform}</span>
</li>`;
}

/** Posts of one day grouped by local hour and offset, in time order. */
function hourGroups(posts: CalendarPost[], timeZone: string): { hour: string; offset: string; posts: CalendarPost[] }[] {
  const groups: { hour: string; offset: string; posts: CalendarPost[] }[] = [];
  for (const entry of posts) {
    const key = hourOf(entry.atMs, timeZone);
    const last = groups[groups.length - 1];
    if (last && last.hour === key.hour && last.offset === key.offset) last.posts.push(entry);
    else groups.push({ ...key, posts: [entry] });
  }
  return groups;
}

function daySection(day: LocalDay, posts: CalendarPost[], accounts: ReadonlyMap<string, Account>, timeZone: string, today: string): Html {
  const note = dayNote(day);
  const changes = note !== '';
  const headingId = `day-${day.date}`;
  return html`<li class="calendar-day${day.date === today ? ' today' : ''}" data-date="${day.date}" data-hours="${String(dayHours(day))}" aria-labelledby="${headingId}">
  <h3 id="${headingId}">${DAY_NAME.format(Date.parse(day.date))}${day.date === today ? html` <span class="badge">today</span>` : ''}</h3>
  ${changes ? html`<p class="day-note">${note}</p>` : ''}
  ${posts.length === 0
    ? html`<p class="muted">No posts.</p>`
    : html`<ol class="calendar-hours">${hourGroups(posts, timeZone).map(
        (group) => html`<li><h4>${group.hour}${changes ? html` <span class="muted">${group.offset}</span>` : ''}</h4>
  <ul>${group.posts.map((entry) => postItem(entry, accounts.get(entry.post.accountId), timeZone))}</ul></li>`,
      )}</ol>`}
</li>`;
}

export interface CalendarPageInput {
  view: CalendarWeekView;
  accounts: ReadonlyMap<string, Account>;
  timeZone: PersonTimeZone;
  /** Every zone the picker offers. */
  zones: readonly string[];
  /** Today's local date in the zone. */
  today: string;
  csrfToken: string;
  notice?: { text: string; error?: boolean };
  /** What was typed in the zone form, shown again when it was refused. */
  typedZone?: string;
}

export function calendarPage(input: CalendarPageInput): Html {
  const { view, timeZone } = input;
  const { week } = view;
  const sunday = week.days[6]!.date;
  const zone = timeZone.timeZone;
  const chosenZone = input.typedZone ?? zone;
  const zones = [...new Set([...input.zones, chosenZone])].sort();
  return html`${input.notice ? html`<p class="notice${input.notice.error ? ' error' : ''}" role="${input.notice.error ? 'alert' : 'status'}">${input.notice.text}</p>` : ''}
<section aria-labelledby="week-heading">
  <h2 id="week-heading">Week of ${LONG_DATE.format(Date.parse(week.monday))}</h2>
  <p>Monday ${LONG_DATE.format(Date.parse(week.monday))} to Sunday ${LONG_DATE.format(Date.parse(sunday))}, in <strong>${zone}</strong>${timeZone.source === 'chosen' ? '' : html` (${timeZone.source === 'browser' ? 'your browser’s' : 'not chosen yet'}: <a href="#time-zone">choose yours</a>)`}. Hover over a time for UTC.</p>
  <nav class="week-nav" aria-label="Weeks">
    <a href="/settings/calendar?week=${week.previous}" rel="prev">← Previous week</a>
    <a href="/settings/calendar">This week</a>
    <a href="/settings/calendar?week=${week.next}" rel="next">Next week →</a>
  </nav>
  ${view.truncated ? html`<p class="notice" role="status">You have more posts than this page reads at once: some of this week’s may be missing. The Posts page lists them all.</p>` : ''}
  <p class="muted">${view.posts.length === 0 ? 'No scheduled or published posts this week.' : `${view.posts.length} post${view.posts.length === 1 ? '' : 's'} this week.`}</p>
  <ol class="calendar">${week.days.map((day) =>
    daySection(day, view.posts.filter((entry) => entry.atMs >= day.startMs && entry.atMs < day.endMs), input.accounts, zone, input.today),
  )}</ol>
</section>
<section aria-labelledby="time-zone">
  <h2 id="time-zone" tabindex="-1">Your time zone</h2>
  <p>Every time on these pages is shown in it. Until you choose one, your browser’s is used.</p>
  <form method="post" action="/settings/time-zone" class="stack">${csrfField(input.csrfToken)}
    <input type="hidden" name="week" value="${week.monday}">
    <div><label for="person-time-zone">Time zone</label>
    <select id="person-time-zone" name="timeZone" data-browser-zone="${timeZone.source === 'chosen' ? 'keep' : 'use'}">${zones.map((name) => html`<option value="${name}"${name === chosenZone ? ' selected' : ''}>${name}</option>`)}</select></div>
    <button type="submit" class="primary">Save time zone</button>
  </form>
</section>`;
}
