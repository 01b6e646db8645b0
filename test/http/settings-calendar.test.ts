/**
 * The settings Calendar and the person's time zone through HTTP against the local stack (issue 33
 * item 4): a week of the signed-in person's scheduled and published posts by local day and hour,
 * days of 23 and 25 hours where the clocks change, another user's posts never shown, a bad `week`
 * a 400 page saying why, the zone chosen in settings (else the browser's cookie, else UTC) used by
 * every page's times, with the UTC instant in `datetime` and on hover.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbUserStore } from '../../lib/store/dynamodb-user-store.js';
import { placePost } from '../support/calendar.js';
import { settingsSession } from '../support/settings-session.js';
import { futureInstant } from '../support/clock.js';
import { api } from '../support/http.js';
import { startPostsStack } from '../support/posts.js';
import { provisionUser, type ProvisionedUser } from '../support/provision.js';
import type { TestStack } from '../support/stack.js';

let stack: TestStack;
let owner: ProvisionedUser;
let other: ProvisionedUser;

beforeAll(async () => {
  stack = await startPostsStack();
  owner = await provisionUser({ accounts: [{ platform: 'x', handle: '@owner', name: 'Owner on X', sandbox: 'ok' }] });
  other = await provisionUser({ accounts: [{ platform: 'x', handle: '@other', name: 'Other on X', sandbox: 'ok' }] });
  // Berlin's clocks go back on Sunday 2026-10-25 (03:00 CEST -> 02:00 CET): 02:30 happens twice.
  await placePost(stack, owner, 'published', '2026-10-25T00:30:00.000Z', 'First 02:30, summer time');
  await placePost(stack, owner, 'published', '2026-10-25T01:30:00.000Z', 'Second 02:30, winter time');
  // The week's last minute in Berlin, and the next week's first (Monday 00:00 CET).
  await placePost(stack, owner, 'published', '2026-10-25T22:59:00.000Z', 'Sunday 23:59 in Berlin');
  await placePost(stack, owner, 'published', '2026-10-25T23:00:00.000Z', 'Monday 00:00 in Berlin');
  // Berlin's clocks go forward on Sunday 2027-03-28: a 23-hour day.
  await placePost(stack, owner, 'scheduled', '2027-03-28T01:30:00.000Z', 'After the jump');
  await placePost(stack, other, 'published', '2026-10-25T00:30:00.000Z', 'Another user’s post');
  await placePost(stack, other, 'scheduled', '2027-03-28T01:30:00.000Z', 'Another user’s scheduled post');
});

afterAll(async () => {
  await stack?.stop();
});

const users = () => new DynamoDbUserStore({ tableName: stack.tables.directory });

/** The `<li>` of a day on the Calendar page. */
function day(page: string, date: string): string {
  const start = page.indexOf(`data-date="${date}"`);
  expect(start, `no day ${date}`).toBeGreaterThan(-1);
  const end = page.indexOf('<li class="calendar-day', start);
  return page.slice(start, end === -1 ? page.indexOf('</ol>\n</section>', start) : end);
}

describe('the Calendar', () => {
  it('chooses Europe/Berlin in settings, stored on the person, and shows the week the clocks go back: a 25-hour Sunday with two 02:00 hours', async () => {
    const browser = await settingsSession(stack, owner);
    const saved = await browser.post('/settings/time-zone', { timeZone: 'europe/berlin', week: '2026-10-19' });
    expect(saved.status).toBe(303);
    expect(saved.headers.get('location')).toBe('/settings/calendar?week=2026-10-19&done=time-zone#time-zone');
    expect((await users().getUser(owner.userId))?.timeZone).toBe('Europe/Berlin');

    const response = await browser.get('/settings/calendar?week=2026-10-22');
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).toContain('Week of 19 October 2026');
    expect(page).toContain('href="/settings/calendar?week=2026-10-12" rel="prev"');
    expect(page).toContain('href="/settings/calendar?week=2026-10-26" rel="next"');
    const sunday = day(page, '2026-10-25');
    expect(sunday).toContain('data-hours="25"');
    expect(sunday).toContain('25 hours: clocks go back');
    expect(sunday).toMatch(/<h4>02:00 <span class="muted">UTC\+2<\/span><\/h4>\s*<ul><li[^]*First 02:30, summer time/);
    expect(sunday).toMatch(/<h4>02:00 <span class="muted">UTC\+1<\/span><\/h4>\s*<ul><li[^]*Second 02:30, winter time/);
    expect(sunday).toContain('<time datetime="2026-10-25T00:30:00.000Z" title="2026-10-25 00:30 UTC">02:30</time>');
    expect(sunday).toContain('<time datetime="2026-10-25T01:30:00.000Z" title="2026-10-25 01:30 UTC">02:30</time>');
    expect(sunday).toContain('Sunday 23:59 in Berlin');
    expect(page).not.toContain('Monday 00:00 in Berlin');
    expect(day(page, '2026-10-24')).toContain('data-hours="24"');
    expect(page).toContain('href="/settings/posts?status=published#');
    expect(page).not.toContain('Another user');
  });

  it('shows the week the clocks go forward as a 23-hour Sunday, a scheduled post at its local time', async () => {
    const browser = await settingsSession(stack, owner);
    const page = await (await browser.get('/settings/calendar?week=2027-03-28')).text();
    const sunday = day(page, '2027-03-28');
    expect(sunday).toContain('data-hours="23"');
    expect(sunday).toContain('23 hours: clocks go forward');
    expect(sunday).toContain('<h4>03:00 <span class="muted">UTC+2</span></h4>');
    expect(sunday).toContain('After the jump');
    expect(sunday).toContain('<time datetime="2027-03-28T01:30:00.000Z" title="2027-03-28 01:30 UTC">03:30</time>');
    expect(page).not.toContain('Another user');
  });

  it('puts a post created through the API in its week, and never another user’s', async () => {
    const at = futureInstant(3).toISOString();
    const created = await api(stack.baseUrl, owner.apiKey).post<{ posts: { id: string }[] }>('/posts', { accounts: [owner.accounts[0]!.id], text: 'Made through the API', scheduledFor: at });
    expect(created.status).toBe(202);
    const otherAt = futureInstant(3).toISOString();
    expect((await api(stack.baseUrl, other.apiKey).post('/posts', { accounts: [other.accounts[0]!.id], text: 'Other through the API', scheduledFor: otherAt })).status).toBe(202);

    const page = await (await (await settingsSession(stack, owner)).get(`/settings/calendar?week=${at.slice(0, 10)}`)).text();
    expect(page).toContain('Made through the API');
    expect(page).toContain(`data-post-id="${created.body.posts[0]!.id}"`);
    expect(page).not.toContain('Other through the API');
    const otherPage = await (await (await settingsSession(stack, other)).get(`/settings/calendar?week=${at.slice(0, 10)}`)).text();
    expect(otherPage).toContain('Other through the API');
    expect(otherPage).not.toContain('Made through the API');
  });

  it('answers a bad week with a 400 page that says why, never a 5xx', async () => {
    const browser = await settingsSession(stack, owner);
    for (const week of ['2026-02-30', 'next', '1999-12-27', '2026-10-25T00:00', 'x'.repeat(4000), '%00', '2026-10-25%0A']) {
      const response = await browser.get(`/settings/calendar?week=${week}`);
      expect(response.status, week.slice(0, 20)).toBe(400);
      const page = await response.text();
      expect(page).toMatch(/is not a date|from the year 2000 to 2099/);
      expect(page).toContain('role="alert"');
    }
  });
});

describe('the person’s time zone', () => {
  it('without a choice, uses the browser’s zone from its cookie; an unknown one is UTC', async () => {
    const someone = await provisionUser({ accounts: [{ platform: 'x', handle: '@someone', name: 'Someone on X', sandbox: 'ok' }] });
    await placePost(stack, someone, 'published', '2026-11-01T05:30:00.000Z', 'First 01:30 in New York');
    await placePost(stack, someone, 'published', '2026-11-01T06:30:00.000Z', 'Second 01:30 in New York');
    const browser = await settingsSession(stack, someone);

    const inNewYork = await (await browser.get('/settings/calendar?week=2026-11-01', 'sp_tz=America/New_York')).text();
    expect(inNewYork).toContain('Times in America/New_York');
    expect(inNewYork).toContain('data-time-zone-source="browser"');
    expect(day(inNewYork, '2026-11-01')).toContain('data-hours="25"');
    expect(inNewYork).toContain('<time datetime="2026-11-01T05:30:00.000Z" title="2026-11-01 05:30 UTC">01:30</time>');
    // The Posts page reads the same zone: every time on every page.
    const posts = await (await browser.get('/settings/posts?status=published', 'sp_tz=America/New_York')).text();
    expect(posts).toContain('Published <time datetime="2026-11-01T05:30:00.000Z" title="2026-11-01 05:30 UTC">2026-11-01 01:30 UTC-4</time>');
    expect(posts).toContain('Published <time datetime="2026-11-01T06:30:00.000Z" title="2026-11-01 06:30 UTC">2026-11-01 01:30 UTC-5</time>');

    for (const cookie of ['sp_tz=Mars/Olympus', 'sp_tz=', 'sp_tz=../../etc', `sp_tz=${'A'.repeat(200)}`]) {
      const page = await (await browser.get('/settings/posts?status=published', cookie)).text();
      expect(page).toContain('Times in UTC');
      expect(page).toContain('2026-11-01 05:30 UTC</time>');
    }
  });

  it('a chosen zone wins over the browser’s; an unknown one is refused with a 400 page and changes nothing', async () => {
    const someone = await provisionUser({ accounts: [{ platform: 'x', handle: '@chooser', name: 'Chooser on X', sandbox: 'ok' }] });
    const browser = await settingsSession(stack, someone);
    expect((await browser.post('/settings/time-zone', { timeZone: 'Asia/Kolkata' })).status).toBe(303);
    const overview = await (await browser.get('/settings', 'sp_tz=America/New_York')).text();
    expect(overview).toContain('Times in Asia/Kolkata');
    expect(overview).toContain('data-time-zone-source="chosen"');
    // The allowance resets at midnight UTC on the first of a month: 05:30 in Kolkata.
    expect(overview).toMatch(/resets <time datetime="\d{4}-\d\d-01T00:00:00.000Z" title="\d{4}-\d\d-01 00:00 UTC">\d{4}-\d\d-01 05:30 UTC\+5:30<\/time>/);

    for (const timeZone of ['Mars/Olympus', '', 'Europe/Berlin; drop', 'x'.repeat(500)]) {
      const refused = await browser.post('/settings/time-zone', { timeZone, week: '2026-10-25' });
      expect(refused.status).toBe(400);
      const page = await refused.text();
      expect(page).toContain('is not a time zone we know');
      expect(page).toContain('Week of 19 October 2026');
    }
    expect((await users().getUser(someone.userId))?.timeZone).toBe('Asia/Kolkata');
  });
});
