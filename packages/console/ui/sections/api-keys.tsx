import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { CopyButton, ErrorNote, formatTime, Notice, Section, useAction, useLoad } from '../components.js';

interface ApiKey {
  key_id: string;
  label?: string;
  scopes: string[];
  preview: string;
  created_at: number;
  last_used_at?: number;
  revoked_at?: number;
}

const SCOPES = ['scrape', 'parse', 'account'] as const;

export function ApiKeys({ apiKey, ownKeyId }: { apiKey: string; ownKeyId: string }) {
  const keys = useLoad(() => api<{ keys: ApiKey[] }>(apiKey, 'GET', '/account/keys'), [apiKey]);
  const [label, setLabel] = useState('');
  const [scopes, setScopes] = useState<string[]>(['scrape']);
  const [created, setCreated] = useState<{ key: string; key_id: string } | null>(null);
  const { problem, run } = useAction();

  const create = (event: Event) => {
    event.preventDefault();
    return run(async () => {
      const answer = await api<{ key: string; key_id: string }>(apiKey, 'POST', '/account/keys', { scopes, ...(label.trim() ? { label: label.trim() } : {}) });
      setCreated(answer);
      setLabel('');
      keys.reload();
    });
  };

  const revoke = async (k: ApiKey) => {
    const own = k.key_id === ownKeyId ? ' This is the key you signed in with: the console will stop working.' : '';
    if (!window.confirm(`Revoke key ${k.label ?? k.preview}? Requests with it will answer 401.${own}`)) return;
    await run(async () => {
      await api(apiKey, 'DELETE', `/account/keys/${encodeURIComponent(k.key_id)}`);
      keys.reload();
    });
  };

  return (
    <>
      <Section title="Create an API key">
        <form class="form" onSubmit={create}>
          <label>
            Label
            <input name="label" value={label} maxLength={100} placeholder="e.g. production" onInput={(e) => setLabel(e.currentTarget.value)} />
          </label>
          <fieldset>
            <legend>Scopes</legend>
            {SCOPES.map((s) => (
              <label key={s} class="inline">
                <input
                  type="checkbox"
                  name="scope"
                  value={s}
                  checked={scopes.includes(s)}
                  onChange={(e) => setScopes(e.currentTarget.checked ? [...scopes, s] : scopes.filter((x) => x !== s))}
                />
                {s}
              </label>
            ))}
          </fieldset>
          <button type="submit" disabled={scopes.length === 0}>
            Create key
          </button>
        </form>
        <ErrorNote error={problem} />
        {created && (
          <div class="secret-once" data-testid="new-key">
            <Notice>Copy this key now: it is shown only once and stored only as a hash.</Notice>
            <label>
              New key
              <input readOnly class="mono" value={created.key} onFocus={(e) => e.currentTarget.select()} />
            </label>
            <CopyButton text={created.key} label="Copy key" />
            <button type="button" onClick={() => setCreated(null)}>
              Done
            </button>
          </div>
        )}
      </Section>
      <Section title="API keys" actions={<button type="button" onClick={keys.reload}>Refresh</button>}>
        <ErrorNote error={keys.error} />
        <div class="table-wrap">
          <table class="keys">
            <thead>
              <tr>
                <th scope="col">Label</th>
                <th scope="col">Key</th>
                <th scope="col">Scopes</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">State</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.data?.keys.map((k) => (
                <tr key={k.key_id} data-key-id={k.key_id}>
                  <td>{k.label ?? '—'}</td>
                  <td class="mono">{k.preview}…</td>
                  <td>{k.scopes.join(', ')}</td>
                  <td>{formatTime(k.created_at)}</td>
                  <td>{formatTime(k.last_used_at)}</td>
                  <td>{k.revoked_at ? `revoked ${formatTime(k.revoked_at)}` : k.key_id === ownKeyId ? 'active (this session)' : 'active'}</td>
                  <td>
                    {!k.revoked_at && (
                      <button type="button" class="danger" onClick={() => revoke(k)} aria-label={`Revoke ${k.label ?? k.preview}`}>
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </Section>
    </>
  );
}
