/** A post's metrics: its latest figures and their history as a chart, from the API's GET /posts/{id}/metrics answer. */
import { METRIC_FIGURES } from '../../domain/post-metrics.js';
import type { PostMetricsView } from '../../use-cases/post-metrics.js';
import { chart, formatFigure } from '../chart.js';
import { html, type Html } from '../html.js';
import { localTime } from '../../domain/local-time.js';
import { formatTime, pageTimeZone } from './format.js';
import { csrfField } from './layout.js';

/** `notice`: the refresh just done; `refusal`: why a refresh was not done (too soon, the platform did not answer). */
export function postMetricsPage(view: PostMetricsView, csrfToken: string, notice?: string, refusal?: string): Html {
  const latest = view.metrics;
  return html`${notice ? html`<p class="notice ok" role="status">${notice}</p>` : ''}${refusal ? html`<p class="notice error" role="alert">${refusal}</p>` : ''}
<p><a href="/settings/posts">← All posts</a></p>
<section class="card">
  <h2>Post <code>${view.postId}</code> on ${view.platform}</h2>
  ${latest
    ? html`<p class="muted">Last collected ${formatTime(latest.collectedAt)}.</p>
  <dl class="figures">${METRIC_FIGURES.map((name) => html`<div><dt>${name[0]?.toUpperCase()}${name.slice(1)}</dt><dd>${formatFigure(latest[name])}</dd></div>`)}</dl>`
    : html`<p class="muted">Not collected yet: the first collection comes about an hour after the post went out.</p>`}
  ${chart({
    title: 'Impressions at each collection',
    valueName: 'Impressions',
    kind: 'line',
    points: view.history.map((entry) => ({ label: localTime(Date.parse(entry.collectedAt), pageTimeZone()).label.slice(5, 16), value: entry.impressions })),
  })}
  <form method="post" action="/settings/posts/${view.postId}/metrics/refresh">${csrfField(csrfToken)}<button type="submit">Refresh metrics</button></form>
  <p class="muted">A post's metrics can be refreshed once every 5 minutes.</p>
</section>`;
}
