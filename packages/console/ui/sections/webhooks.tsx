import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { CopyButton, ErrorNote, formatTime, Section, useAction, useLoad } from '../components.js';

interface Subscription {
  id: string;
  url: string;
  families: string[];
  created_at: number;
}

interface Delivery {
  request_id: string;
  family: string;
  created_at: number;
  subscription_id?: string;
  url: string;
  status: string;
  attempts: number;
  last_error?: string;
}

const FAMILIES = ['scrape', 'scrape-v1', 'parse', 'crawl', 'batch', 'map'];
/** What the API subscribes to when none are named: crawl notices are opted into. */
const DEFAULT_FAMILIES = ['scrape', 'scrape-v1', 'parse'];

function SigningSecret({ apiKey }: { apiKey: string }) {
  const [secret, setSecret] = useState<string>();
  const { problem, run } = useAction();
  const reveal = () =>
    run(async () => {
      setSecret((await api<{ secret: string }>(apiKey, 'GET', '/account/webhook-secret')).secret);
    });
  const rotate = async () => {
    if (!window.confirm('Rotate the signing secret? Deliveries from now on are signed with the new one; receivers must be given it.')) return;
    await run(async () => {
      setSecret((await api<{ secret: string }>(apiKey, 'POST', '/account/webhook-secret/rotate')).secret);
    });
  };
  return (
    <Section title="Signing secret">
      <p class="hint">Every webhook carries X-Webhook-Signature: t=&lt;unix&gt;,v1=&lt;hex HMAC-SHA256 of "t.body"&gt; keyed with this secret.</p>
      <div class="row">
        <code class="mono secret" data-testid="webhook-secret">
          {secret ?? '••••••••••••••••'}
        </code>
        {secret ? (
          <>
            <CopyButton text={secret} label="Copy secret" />
            <button type="button" onClick={() => setSecret(undefined)}>
              Hide
            </button>
          </>
        ) : (
          <button type="button" onClick={reveal}>
            Reveal
          </button>
        )}
        <button type="button" class="danger" onClick={rotate}>
          Rotate
        </button>
      </div>
      <ErrorNote error={problem} />
    </Section>
  );
}

export function Webhooks({ apiKey }: { apiKey: string }) {
  const subscriptions = useLoad(() => api<{ webhooks: Subscription[] }>(apiKey, 'GET', '/account/webhooks'), [apiKey]);
  const deliveries = useLoad(() => api<{ deliveries: Delivery[] }>(apiKey, 'GET', '/account/webhook-deliveries'), [apiKey]);
  const [url, setUrl] = useState('');
  const [families, setFamilies] = useState<string[]>([...DEFAULT_FAMILIES]);
  const { problem, run } = useAction();

  const add = (event: Event) => {
    event.preventDefault();
    return run(async () => {
      await api(apiKey, 'POST', '/account/webhooks', { url, families });
      setUrl('');
      subscriptions.reload();
    });
  };
  const remove = (s: Subscription) =>
    run(async () => {
      await api(apiKey, 'DELETE', `/account/webhooks/${encodeURIComponent(s.id)}`);
      subscriptions.reload();
    });

  return (
    <>
      <SigningSecret apiKey={apiKey} />
      <Section title="Subscriptions">
        <p class="hint">Every request of the chosen families that ends is also delivered to these endpoints, signed like a per-request webhook (a crawl or batch: its end notice with its counts).</p>
        <form class="form" onSubmit={add}>
          <label>
            Endpoint URL
            <input name="url" type="url" required value={url} placeholder="https://hooks.example.net/gleaner" onInput={(e) => setUrl(e.currentTarget.value)} />
          </label>
          <fieldset>
            <legend>Families</legend>
            {FAMILIES.map((f) => (
              <label key={f} class="inline">
                <input type="checkbox" name="family" value={f} checked={families.includes(f)} onChange={(e) => setFamilies(e.currentTarget.checked ? [...families, f] : families.filter((x) => x !== f))} />
                {f}
              </label>
            ))}
          </fieldset>
          <button type="submit" disabled={families.length === 0}>
            Add subscription
          </button>
        </form>
        <ErrorNote error={problem ?? subscriptions.error} />
        <ul class="list" aria-label="Webhook subscriptions">
          {subscriptions.data?.webhooks.length === 0 && <li class="empty">No subscriptions.</li>}
          {subscriptions.data?.webhooks.map((s) => (
            <li key={s.id} data-subscription-id={s.id}>
              <span class="mono wrap">{s.url}</span>
              <span class="muted">{s.families.join(', ')}</span>
              <button type="button" class="danger" onClick={() => remove(s)} aria-label={`Remove subscription ${s.url}`}>
                Remove
              </button>
            </li>
          ))}
        </ul>
      </Section>
      <Section title="Recent deliveries" actions={<button type="button" onClick={deliveries.reload}>Refresh</button>}>
        <ErrorNote error={deliveries.error} />
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Request</th>
                <th scope="col">Endpoint</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last error</th>
              </tr>
            </thead>
            <tbody>
              {deliveries.data?.deliveries.length === 0 && (
                <tr>
                  <td colSpan={5} class="empty">
                    No deliveries among the recent requests.
                  </td>
                </tr>
              )}
              {deliveries.data?.deliveries.map((d) => (
                <tr key={`${d.request_id}-${d.subscription_id ?? 'own'}`}>
                  <td>
                    <a href={`#/requests/${d.request_id}`}>{d.family}</a> <span class="muted">{formatTime(d.created_at)}</span>
                  </td>
                  <td class="mono wrap">
                    {d.url}
                    {d.subscription_id ? '' : ' (request webhook)'}
                  </td>
                  <td>
                    <span class={`badge status-${d.status}`}>{d.status}</span>
                  </td>
                  <td>{d.attempts}</td>
                  <td class="wrap">{d.last_error ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </Section>
    </>
  );
}
