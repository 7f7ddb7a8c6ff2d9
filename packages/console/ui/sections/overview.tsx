import { api } from '../api.js';
import { ErrorNote, Section, useLoad } from '../components.js';
import { UsageChart, type DailyUsage, type Series } from '../usage-chart.js';

interface Usage {
  credits_used: number;
  requests: DailyUsage['requests'];
  llm_tokens: DailyUsage['llm_tokens'];
  rate_limit_per_minute: number;
}

const REQUEST_SERIES: Series[] = [
  { key: 'scrape', label: 'Scrape', value: (d) => d.requests.scrape },
  { key: 'scrape-v1', label: 'Scrape v1', value: (d) => d.requests['scrape-v1'] },
  { key: 'parse', label: 'Parse', value: (d) => d.requests.parse },
];
const CREDIT_SERIES: Series[] = [{ key: 'credits', label: 'v1 credits', value: (d) => d.credits_used }];
const TOKEN_SERIES: Series[] = [
  { key: 'tokens-in', label: 'Input tokens', value: (d) => d.llm_tokens.input },
  { key: 'tokens-out', label: 'Output tokens', value: (d) => d.llm_tokens.output },
];

export function Overview({ apiKey }: { apiKey: string }) {
  const usage = useLoad(() => api<Usage>(apiKey, 'GET', '/account/usage'), [apiKey]);
  const daily = useLoad(() => api<{ days: DailyUsage[] }>(apiKey, 'GET', '/account/usage/daily?days=30'), [apiKey]);
  const u = usage.data;
  return (
    <>
      <Section title="Usage" actions={<button type="button" onClick={() => (usage.reload(), daily.reload())}>Refresh</button>}>
        <ErrorNote error={usage.error ?? daily.error} />
        {u && (
          <dl class="stats">
            <div>
              <dt>Rate limit</dt>
              <dd data-stat="rate-limit">{u.rate_limit_per_minute} requests / minute per key</dd>
            </div>
            <div>
              <dt>Requests (all time)</dt>
              <dd data-stat="requests">
                {u.requests.scrape} scrape · {u.requests['scrape-v1']} v1 · {u.requests.parse} parse
              </dd>
            </div>
            <div>
              <dt>v1 credits used</dt>
              <dd data-stat="credits">{u.credits_used}</dd>
            </div>
            <div>
              <dt>LLM tokens</dt>
              <dd data-stat="tokens">
                {u.llm_tokens.input} in · {u.llm_tokens.output} out
              </dd>
            </div>
          </dl>
        )}
      </Section>
      <Section title="Last 30 days">
        {daily.data ? (
          <div class="charts">
            <UsageChart id="requests" title="Requests per day" days={daily.data.days} series={REQUEST_SERIES} />
            <UsageChart id="credits" title="v1 credits per day" days={daily.data.days} series={CREDIT_SERIES} />
            <UsageChart id="tokens" title="LLM tokens per day" days={daily.data.days} series={TOKEN_SERIES} />
          </div>
        ) : (
          !daily.error && <p>Loading…</p>
        )}
      </Section>
    </>
  );
}
