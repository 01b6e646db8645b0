/**
 * Analytics: the period's totals, a chart of impressions by the day posts went out, the figures
 * per account and the top posts, all from the API's own GET /analytics answer (AnalyticsView), so
 * the page and the API can never disagree.
 */
import type { Account } from '../../domain/model.js';
import { METRIC_FIGURES, type PostFigures } from '../../domain/post-metrics.js';
import type { AnalyticsView } from '../../use-cases/post-metrics.js';
import { chart, formatFigure } from '../chart.js';
import { html, type Html } from '../html.js';

/** The periods the page offers, in days (GET /analytics takes any period up to its maximum). */
export const ANALYTICS_PERIODS = [7, 30, 90] as const;
export type AnalyticsPeriod = (typeof ANALYTICS_PERIODS)[number];

/** Analytics counts whole UTC days (GET /analytics's byDay), so its dates are UTC dates. */
function formatDate(iso: string): string {
  return iso.slice(0, 10);
}

const FIGURE_NAMES: Readonly<Record<keyof PostFigures, string>> = {
  impressions: 'Impressions',
  likes: 'Likes',
  comments: 'Comments',
  reposts: 'Reposts',
  quotes: 'Quotes',
  bookmarks: 'Bookmarks',
  clicks: 'Clicks',
};

function figureCells(figures: PostFigures): Html[] {
  return METRIC_FIGURES.map((name) => html`<td data-label="${FIGURE_NAMES[name]}">${formatFigure(figures[name])}</td>`);
}

const FIGURE_HEADERS = METRIC_FIGURES.map((name) => html`<th scope="col">${FIGURE_NAMES[name]}</th>`);

export function analyticsPage(input: { analytics: AnalyticsView; days: AnalyticsPeriod; accounts: ReadonlyMap<string, Account> }): Html {
  const { analytics, days, accounts } = input;
  const periodForm = html`<form method="get" action="/settings/analytics" class="inline">
  <label for="days">Period</label>
  <select id="days" name="days">${ANALYTICS_PERIODS.map((choice) => html`<option value="${choice}"${choice === days ? html` selected` : ''}>Last ${choice} days</option>`)}</select>
  <button type="submit">Show</button>
</form>`;
  const totals = html`<dl class="figures">
  <div><dt>Posts published</dt><dd>${formatFigure(analytics.totals.posts)}</dd></div>
  ${METRIC_FIGURES.map((name) => html`<div><dt>${FIGURE_NAMES[name]}</dt><dd>${formatFigure(analytics.totals[name])}</dd></div>`)}
</dl>`;
  const byDay = chart({
    title: `Impressions of the posts published each day, ${formatDate(analytics.from)} to ${formatDate(new Date(Date.parse(analytics.to) - 1).toISOString())}`,
    valueName: 'Impressions',
    kind: 'bar',
    points: analytics.byDay.map((day) => ({ label: day.date.slice(5), value: day.posts === 0 ? 0 : day.impressions })),
  });
  const accountRows = analytics.byAccount.map((row) => {
    const account = accounts.get(row.accountId);
    return html`<tr><td data-label="Account">${account ? html`${account.name}<br><span class="muted">${row.platform} ${account.handle}</span>` : html`${row.platform}<br><span class="muted">${row.accountId}</span>`}</td><td data-label="Posts">${formatFigure(row.posts)}</td>${figureCells(row)}</tr>`;
  });
  // The form's own label names the card: a heading above it said "Period" a second time.
  return html`<section class="card">
  ${periodForm}
  <p class="muted">Posts published from ${formatDate(analytics.from)} up to today (UTC). Figures are as last collected: about 1 hour, 6 hours, 1, 3, 7 and 30 days after each post went out.</p>
</section>
<section class="card" aria-labelledby="totals-heading">
  <h2 id="totals-heading">Totals</h2>
  ${totals}
  ${byDay}
</section>
<h2>By account</h2>
${analytics.byAccount.length === 0
  ? html`<p class="muted">No posts published in this period.</p>`
  : html`<div class="table-wrap"><table class="stack"><thead><tr><th scope="col">Account</th><th scope="col">Posts</th>${FIGURE_HEADERS}</tr></thead><tbody>${accountRows}</tbody></table></div>`}
<h2>Top posts</h2>
${analytics.topPosts.length === 0
  ? html`<p class="muted">No post of this period has impressions yet.</p>`
  : html`<ol class="top-posts">${analytics.topPosts.map((id) => html`<li><a href="/settings/posts/${id}/metrics"><code>${id}</code></a></li>`)}</ol>`}`;
}
