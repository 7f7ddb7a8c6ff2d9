import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { ErrorNote, formatTime, Section, useAction, useLoad } from '../components.js';

interface LlmKey {
  id: string;
  provider: string;
  model?: string;
  baseUrl?: string;
  label?: string;
  createdAt: number;
  masked: string;
}

const PROVIDERS = ['anthropic', 'openai-compatible'];

/** Language-model keys: the secret goes in once and is never shown again (the API lists it masked). */
export function LlmKeys({ apiKey }: { apiKey: string }) {
  const keys = useLoad(() => api<{ keys: LlmKey[] }>(apiKey, 'GET', '/account/llm-keys'), [apiKey]);
  const [form, setForm] = useState({ provider: 'anthropic', key: '', model: '', base_url: '', label: '' });
  const { problem, run } = useAction();
  const set = (field: keyof typeof form) => (e: Event) => setForm({ ...form, [field]: (e.currentTarget as HTMLInputElement).value });

  const add = (event: Event) => {
    event.preventDefault();
    const body = Object.fromEntries(Object.entries(form).filter(([, v]) => v.trim() !== ''));
    return run(async () => {
      await api(apiKey, 'POST', '/account/llm-keys', body);
      setForm({ ...form, key: '', model: '', base_url: '', label: '' });
      keys.reload();
    });
  };

  const remove = async (k: LlmKey) => {
    if (!window.confirm(`Remove the ${k.provider} key ${k.label ?? k.masked}?`)) return;
    await run(async () => {
      await api(apiKey, 'DELETE', `/account/llm-keys/${encodeURIComponent(k.id)}`);
      keys.reload();
    });
  };

  return (
    <>
      <Section title="Add a language-model key">
        <form class="form" onSubmit={add}>
          <label>
            Provider
            <select name="provider" value={form.provider} onChange={set('provider')}>
              {PROVIDERS.map((p) => (
                <option key={p} value={p}>
                  {p}
                </option>
              ))}
            </select>
          </label>
          <label>
            Secret key
            <input name="key" type="password" autoComplete="off" required value={form.key} onInput={set('key')} />
          </label>
          <label>
            Default model (optional)
            <input name="model" value={form.model} onInput={set('model')} />
          </label>
          <label>
            Base URL (optional)
            <input name="base_url" type="url" value={form.base_url} onInput={set('base_url')} placeholder="https://llm.example.net/v1" />
          </label>
          <label>
            Label (optional)
            <input name="label" value={form.label} onInput={set('label')} />
          </label>
          <button type="submit">Add key</button>
        </form>
        <ErrorNote error={problem} />
      </Section>
      <Section title="Language-model keys" actions={<button type="button" onClick={keys.reload}>Refresh</button>}>
        <ErrorNote error={keys.error} />
        <p class="hint">The newest key is used when a scrape names no llm_key_id.</p>
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Id (llm_key_id)</th>
                <th scope="col">Provider</th>
                <th scope="col">Model</th>
                <th scope="col">Label</th>
                <th scope="col">Secret</th>
                <th scope="col">Added</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.data?.keys.map((k) => (
                <tr key={k.id} data-llm-key-id={k.id}>
                  <td class="mono">{k.id}</td>
                  <td>{k.provider}</td>
                  <td>{k.model ?? '—'}</td>
                  <td>{k.label ?? '—'}</td>
                  <td class="mono">{k.masked}</td>
                  <td>{formatTime(k.createdAt)}</td>
                  <td>
                    <button type="button" class="danger" onClick={() => remove(k)} aria-label={`Remove ${k.label ?? k.id}`}>
                      Remove
                    </button>
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
