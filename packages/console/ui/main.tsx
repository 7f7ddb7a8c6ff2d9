import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { callApi, type AccountInfo } from './api.js';
import { ErrorNote, messageOf } from './components.js';
import { ApiKeys } from './sections/api-keys.js';
import { LlmKeys } from './sections/llm-keys.js';
import { Overview } from './sections/overview.js';
import { Playground } from './sections/playground.js';
import { RequestDetailView, RequestList } from './sections/requests.js';
import { Webhooks } from './sections/webhooks.js';
import { forgetKey, storedKey, storeKey } from './session.js';
import './console.css';

const SECTIONS = [
  { path: 'overview', title: 'Overview' },
  { path: 'keys', title: 'API keys' },
  { path: 'llm-keys', title: 'LLM keys' },
  { path: 'webhooks', title: 'Webhooks' },
  { path: 'requests', title: 'Requests' },
  { path: 'playground', title: 'Playground' },
] as const;

function currentRoute(): string[] {
  const parts = location.hash.replace(/^#\/?/, '').split('/').filter(Boolean);
  return parts.length ? parts : ['overview'];
}

/** Why a key cannot sign in, in words; null when it can. */
async function checkKey(key: string): Promise<{ info?: AccountInfo; problem?: string }> {
  const answer = await callApi<AccountInfo>(key, 'GET', '/account');
  if (answer.status === 401) return { problem: 'This key was refused: it is unknown or has been revoked. Check it and try again.' };
  if (answer.status === 429) return { problem: 'Too many requests with this key: wait a minute and try again.' };
  if (answer.status !== 200) return { problem: `The gateway answered HTTP ${answer.status}; try again shortly.` };
  if (!answer.body.scopes.includes('account')) {
    return { problem: `This key is valid but has only the ${answer.body.scopes.join(', ')} scope; the console needs a key with the account scope.` };
  }
  return { info: answer.body };
}

function SignIn({ onSignedIn, initialProblem }: { onSignedIn: (key: string, info: AccountInfo) => void; initialProblem?: string }) {
  const [key, setKey] = useState('');
  const [problem, setProblem] = useState(initialProblem);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setProblem(undefined);
    try {
      const checked = await checkKey(key.trim());
      if (checked.info) onSignedIn(key.trim(), checked.info);
      else setProblem(checked.problem);
    } catch (err) {
      setProblem(`Could not reach the gateway: ${messageOf(err)}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="signin" id="main">
      <h1>Gleaner console</h1>
      <form class="form card" onSubmit={submit}>
        <label>
          API key with the account scope
          <input name="api-key" type="password" autoComplete="off" required value={key} onInput={(e) => setKey(e.currentTarget.value)} placeholder="glk_…" />
        </label>
        <p class="hint">The key stays in this tab only (session storage) and is sent as the x-api-key header; closing the tab or signing out forgets it.</p>
        <button type="submit" disabled={busy}>
          {busy ? 'Checking…' : 'Sign in'}
        </button>
        <ErrorNote error={problem} />
      </form>
    </main>
  );
}

function Console({ apiKey, info, onSignOut }: { apiKey: string; info: AccountInfo; onSignOut: () => void }) {
  const [route, setRoute] = useState(currentRoute());
  useEffect(() => {
    const onHash = () => setRoute(currentRoute());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  const [section, detail] = route;
  const known = SECTIONS.find((s) => s.path === section) ?? SECTIONS[0];
  useEffect(() => {
    document.title = `${known.title} · Gleaner console`;
    document.getElementById('main')?.focus();
  }, [known.path]);
  return (
    <>
      <a class="skip" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}>
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Gleaner console</span>
        <span class="account" data-testid="account-name">
          {info.name}
        </span>
        <button type="button" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <nav aria-label="Sections">
        <ul>
          {SECTIONS.map((s) => (
            <li key={s.path}>
              <a href={`#/${s.path}`} aria-current={s.path === known.path ? 'page' : undefined}>
                {s.title}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1} data-section={known.path}>
        <h1>{known.title}</h1>
        {known.path === 'overview' && <Overview apiKey={apiKey} />}
        {known.path === 'keys' && <ApiKeys apiKey={apiKey} ownKeyId={info.key_id} />}
        {known.path === 'llm-keys' && <LlmKeys apiKey={apiKey} />}
        {known.path === 'webhooks' && <Webhooks apiKey={apiKey} />}
        {known.path === 'requests' && (detail ? <RequestDetailView apiKey={apiKey} id={detail} /> : <RequestList apiKey={apiKey} />)}
        {known.path === 'playground' && <Playground apiKey={apiKey} />}
      </main>
    </>
  );
}

function App() {
  const [session, setSession] = useState<{ key: string; info: AccountInfo } | null>(null);
  const [checking, setChecking] = useState(true);
  const [problem, setProblem] = useState<string>();
  useEffect(() => {
    const key = storedKey();
    if (!key) return setChecking(false);
    checkKey(key)
      .then((checked) => {
        if (checked.info) setSession({ key, info: checked.info });
        else {
          forgetKey();
          setProblem(checked.problem);
        }
      })
      .catch((err: unknown) => setProblem(messageOf(err)))
      .finally(() => setChecking(false));
  }, []);
  if (checking) return <main id="main" class="signin" aria-busy="true" />;
  if (!session) {
    return (
      <SignIn
        initialProblem={problem}
        onSignedIn={(key, info) => {
          storeKey(key);
          setSession({ key, info });
        }}
      />
    );
  }
  return (
    <Console
      apiKey={session.key}
      info={session.info}
      onSignOut={() => {
        forgetKey();
        setProblem(undefined);
        setSession(null);
        location.hash = '';
      }}
    />
  );
}

render(<App />, document.getElementById('app')!);
