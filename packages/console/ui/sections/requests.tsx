import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { ErrorNote, formatDuration, formatTime, ResultTabs, Section, useAction, useLoad } from '../components.js';
import { MapLinksTable, SiteJobDetail, type CrawlCounts } from './site-jobs.js';

interface WebhookState {
  url: string;
  status: string;
  attempts: number;
  last_error?: string;
}

interface RequestSummary {
  request_id: string;
  family: string;
  status: string;
  url: string;
  created_at: number;
  duration_ms?: number;
  error?: string;
  webhook?: WebhookState;
  subscription_deliveries: number;
  /** Crawls and batches. */
  counts?: CrawlCounts;
  /** Batches: URLs given. */
  urls?: number;
  /** Completed maps: URLs found. */
  links?: number;
}

/** What a request names: its page or document, a batch's URL count. */
function target(r: RequestSummary): string {
  return r.family === 'batch' ? `${r.urls ?? 0} URLs` : r.url;
}

/** What a crawl, batch or map has produced so far; empty for the other families. */
function progress(r: RequestSummary): string {
  if (r.counts) return `${r.counts.completed} read · ${r.counts.failed} failed · ${r.counts.skipped} skipped${r.counts.queued + r.counts.processing ? ` · ${r.counts.queued + r.counts.processing} queued` : ''}`;
  if (r.links !== undefined) return `${r.links} URLs`;
  return '';
}

interface RequestDetail extends RequestSummary {
  input: Record<string, unknown>;
  text?: string;
  markdown?: string;
  response: Record<string, unknown>;
  error_details?: string[];
  subscription_delivery_list: Array<WebhookState & { subscription_id: string }>;
}

function webhookText(r: RequestSummary): string {
  const own = r.webhook ? `${r.webhook.status} (${r.webhook.attempts})` : '';
  const subs = r.subscription_deliveries ? `${r.subscription_deliveries} subscription${r.subscription_deliveries > 1 ? 's' : ''}` : '';
  return [own, subs].filter(Boolean).join(' · ') || '—';
}

export function RequestList({ apiKey }: { apiKey: string }) {
  const [pages, setPages] = useState<RequestSummary[][]>([]);
  const [cursor, setCursor] = useState<string>();
  const { problem, run } = useAction();
  const first = useLoad(async () => {
    const page = await api<{ requests: RequestSummary[]; cursor?: string }>(apiKey, 'GET', '/account/requests?limit=25');
    setPages([]);
    setCursor(page.cursor);
    return page.requests;
  }, [apiKey]);
  const more = () =>
    run(async () => {
      const page = await api<{ requests: RequestSummary[]; cursor?: string }>(apiKey, 'GET', `/account/requests?limit=25&cursor=${encodeURIComponent(cursor!)}`);
      setPages([...pages, page.requests]);
      setCursor(page.cursor);
    });
  const rows = [...(first.data ?? []), ...pages.flat()];
  return (
    <Section title="Recent requests" actions={<button type="button" onClick={first.reload}>Refresh</button>}>
      <p class="hint">Newest first, every family; each is kept as long as its record (scrapes 15 h after completion, v1 24 h, documents 7 days, crawls, batches and maps 24 h after they end).</p>
      <ErrorNote error={first.error ?? problem} />
      <div class="table-wrap">
        <table class="requests">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Family</th>
              <th scope="col">Status</th>
              <th scope="col">URL or document</th>
              <th scope="col">Results</th>
              <th scope="col">Duration</th>
              <th scope="col">Webhook</th>
            </tr>
          </thead>
          <tbody>
            {first.data && rows.length === 0 && (
              <tr>
                <td colSpan={7} class="empty">
                  No requests yet.
                </td>
              </tr>
            )}
            {rows.map((r) => (
              <tr key={r.request_id} data-request-id={r.request_id}>
                <td>
                  <a href={`#/requests/${r.request_id}`}>{formatTime(r.created_at)}</a>
                </td>
                <td>{r.family}</td>
                <td>
                  <span class={`badge status-${r.status}`}>{r.status}</span>
                </td>
                <td class="mono wrap">{target(r)}</td>
                <td data-testid="request-progress">{progress(r)}</td>
                <td>{formatDuration(r.duration_ms)}</td>
                <td>{webhookText(r)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {cursor && (
        <button type="button" onClick={more}>
          Older requests
        </button>
      )}
    </Section>
  );
}

export function RequestDetailView({ apiKey, id }: { apiKey: string; id: string }) {
  const detail = useLoad(() => api<RequestDetail>(apiKey, 'GET', `/account/requests/${encodeURIComponent(id)}`), [apiKey, id]);
  const d = detail.data;
  return (
    <Section
      title="Request"
      actions={
        <a class="button" href="#/requests">
          Back to requests
        </a>
      }
    >
      <ErrorNote error={detail.error} />
      {d && (
        <>
          <dl class="details">
            <dt>Id</dt>
            <dd class="mono">{d.request_id}</dd>
            <dt>Family</dt>
            <dd>{d.family}</dd>
            <dt>Status</dt>
            <dd>
              <span class={`badge status-${d.status}`}>{d.status}</span>
            </dd>
            <dt>URL or document</dt>
            <dd class="mono wrap">{target(d)}</dd>
            <dt>Accepted</dt>
            <dd>{formatTime(d.created_at)}</dd>
            <dt>Duration</dt>
            <dd>{formatDuration(d.duration_ms)}</dd>
            <dt>Webhook</dt>
            <dd>
              {d.webhook ? `${d.webhook.url}: ${d.webhook.status}, ${d.webhook.attempts} attempt(s)${d.webhook.last_error ? `, last error ${d.webhook.last_error}` : ''}` : '—'}
              {d.subscription_delivery_list.map((s) => (
                <div key={s.subscription_id}>
                  {s.url}: {s.status}, {s.attempts} attempt(s){s.last_error ? `, last error ${s.last_error}` : ''}
                </div>
              ))}
            </dd>
          </dl>
          {d.error && (
            <div class="error" role="alert" data-testid="request-error">
              <strong>Error:</strong> {d.error}
              {d.error_details && (
                <ul>
                  {d.error_details.map((x) => (
                    <li key={x}>{x}</li>
                  ))}
                </ul>
              )}
            </div>
          )}
          {d.family === 'crawl' || d.family === 'batch' ? (
            <SiteJobDetail apiKey={apiKey} family={d.family} id={d.request_id} />
          ) : (
            <>
              {d.family === 'map' && Array.isArray(d.response.links) && <MapLinksTable links={d.response.links as Array<{ url: string; title?: string }>} />}
              <ResultTabs text={d.text} markdown={d.markdown} json={d.response} />
            </>
          )}
        </>
      )}
    </Section>
  );
}
