/**
 * One account's queue in settings: its time zone and posting times, and the form that replaces
 * them. The form posts to the same use case as the API's PUT (lib/use-cases/queues.ts), so the
 * rules (invalid_time_zone, invalid_slot) live in one place; slots are one "day HH:MM" a line.
 */
import type { Account } from '../../domain/model.js';
import type { QueueView } from '../../use-cases/queues.js';
import { html, type Html } from '../html.js';
import { csrfField } from './layout.js';

/** The form's slots text: one "day HH:MM" a line, as the person typed or the queue holds. */
export function slotsText(queue: QueueView): string {
  return queue.slots.map((slot) => `${slot.day} ${slot.time}`).join('\n');
}

/** The form's "monday 09:00" lines as the API's slots; a line that is not two words stays a slot the rule rejects. */
export function slotsFromText(text: string): { day: string; time: string }[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .map((line) => {
      const [day = '', time = ''] = line.split(/\s+/);
      return { day: day.toLowerCase(), time };
    });
}

export function queuePage(account: Account, queue: QueueView, csrfToken: string, form?: { timeZone: string; slots: string }, notice?: { text: string; error?: boolean }): Html {
  const chosenZone = form?.timeZone ?? queue.timeZone;
  const zones = [...new Set([...Intl.supportedValuesOf('timeZone'), 'UTC', chosenZone])].sort();
  return html`${notice ? html`<p class="notice ${notice.error ? 'error' : 'ok'}" role="${notice.error ? 'alert' : 'status'}">${notice.text}</p>` : ''}
<section class="card" aria-labelledby="queue-now">
  <h2 id="queue-now">${account.name} (${account.platform}, ${account.handle})</h2>
  <p>Time zone: <strong>${queue.timeZone}</strong></p>
  ${queue.slots.length === 0
    ? html`<p>No posting times yet: a post created with <code>"queue": true</code> for this account is rejected with <code>queue_empty</code>.</p>`
    : html`<ul>${queue.slots.map((slot) => html`<li>${slot.day} ${slot.time}</li>`)}</ul>`}
</section>
<section class="card" aria-labelledby="queue-edit">
  <h2 id="queue-edit">Set posting times</h2>
  <form method="post" action="/settings/accounts/${account.id}/queue">${csrfField(csrfToken)}
    <div><label for="time-zone">Time zone</label><select id="time-zone" name="timeZone">${zones.map((zone) => html`<option value="${zone}"${zone === chosenZone ? ' selected' : ''}>${zone}</option>`)}</select></div>
    <div><label for="slots">Posting times, one a line as day and HH:MM (for example <code>monday 09:00</code>)</label>
    <textarea id="slots" name="slots" rows="8" maxlength="2000">${form?.slots ?? slotsText(queue)}</textarea></div>
    <button type="submit" class="primary">Save posting times</button>
  </form>
  <p><a href="/settings/accounts">Back to accounts</a></p>
</section>`;
}
