import { useEffect, useRef, useState } from 'preact/hooks';
import { callApi } from '../api.js';
import { CRAWL_OPTIONS, curlCommand, initialValues, isShown, PARSE_OPTIONS, requestBody, SCRAPE_OPTIONS, type ApiOption, type OptionValues } from '../api-options.js';
import { CopyButton, ErrorNote, messageOf, Notice, ResultTabs, Section, TextBlock } from '../components.js';
import { CrawlWatch } from './site-jobs.js';

type Mode = 'scrape' | 'parse' | 'crawl';

interface Endpoint {
  submitPath: string;
  statusPath: (id: string) => string;
  options: readonly ApiOption[];
  /** The id a 202 answer gives, to follow on the status endpoint. */
  idOf: (body: Record<string, unknown>) => string | undefined;
  stillRunning: (body: Record<string, unknown>) => boolean;
  text: (body: Record<string, unknown>, sent: Record<string, unknown>) => string | undefined;
  markdown: (body: Record<string, unknown>, sent: Record<string, unknown>) => string | undefined;
}

const content = (b: Record<string, unknown>) => (b.content ?? {}) as Record<string, unknown>;
const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

const ENDPOINTS: Record<Mode, Endpoint> = {
  scrape: {
    submitPath: '/web-scrapper/',
    statusPath: (id) => `/web-scrapper/${encodeURIComponent(id)}`,
    options: SCRAPE_OPTIONS,
    idOf: (b) => str(b.request_id),
    stillRunning: (b) => b.status === 'processing' || b.status === 'received',
    text: (b) => str(b.text_content) ?? str(content(b).text),
    markdown: (b) => str(b.markdown_content) ?? str(content(b).markdown),
  },
  parse: {
    submitPath: '/documents/parse',
    statusPath: (id) => `/documents/status/${encodeURIComponent(id)}`,
    options: PARSE_OPTIONS,
    idOf: (b) => str(b.requestId),
    stillRunning: (b) => b.status === 'PROCESSING',
    text: (b, sent) => (sent.output === 'markdown' ? undefined : str(b.data)),
    markdown: (b, sent) => (sent.output === 'markdown' ? str(b.data) : undefined),
  },
  // A crawl answers 202 at once: CrawlWatch follows it (its counts and its results by cursor).
  crawl: {
    submitPath: '/web-scrapper/crawl',
    statusPath: (id) => `/web-scrapper/crawl/${encodeURIComponent(id)}`,
    options: CRAWL_OPTIONS,
    idOf: (b) => str(b.request_id),
    stillRunning: () => false,
    text: () => undefined,
    markdown: () => undefined,
  },
};

const SUBMIT_LABEL: Record<Mode, string> = { scrape: 'Scrape', parse: 'Parse', crawl: 'Start crawl' };

const POLL_MS = 3_000;
const POLL_FOR_MS = 10 * 60_000;

function OptionField({ option, values, set }: { option: ApiOption; values: OptionValues; set: (name: string, value: string | boolean) => void }) {
  const id = `opt-${option.name}`;
  const value = values[option.name];
  if (option.kind === 'boolean') {
    return (
      <label class="inline" for={id}>
        <input id={id} type="checkbox" name={option.name} checked={value === true} onChange={(e) => set(option.name, e.currentTarget.checked)} />
        {option.label} <code class="field-name">{option.name}</code>
      </label>
    );
  }
  const caption = (
    <>
      {option.label} <code class="field-name">{option.name}</code>
    </>
  );
  if (option.kind === 'choice') {
    return (
      <label for={id}>
        {caption}
        <select id={id} name={option.name} value={String(value)} onChange={(e) => set(option.name, e.currentTarget.value)}>
          {option.choices!.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      </label>
    );
  }
  if (option.kind === 'longtext' || option.kind === 'json' || option.kind === 'lines') {
    return (
      <label for={id}>
        {caption}
        <textarea id={id} name={option.name} rows={3} required={option.required} placeholder={option.placeholder} value={String(value)} onInput={(e) => set(option.name, e.currentTarget.value)} />
      </label>
    );
  }
  const onInput = (e: Event) => set(option.name, (e.currentTarget as HTMLInputElement).value);
  return (
    <label for={id}>
      {caption}
      {option.kind === 'url' ? (
        <input id={id} name={option.name} type="url" required={option.required} placeholder={option.placeholder} value={String(value)} onInput={onInput} />
      ) : option.kind === 'number' ? (
        <input id={id} name={option.name} type="number" min="0" step="1" required={option.required} placeholder={option.placeholder} value={String(value)} onInput={onInput} />
      ) : (
        <input id={id} name={option.name} type="text" required={option.required} placeholder={option.placeholder} value={String(value)} onInput={onInput} />
      )}
    </label>
  );
}

/**
 * Where the document comes from. Today a URL only; issue 29's multipart upload adds a "file"
 * source here (a file input, sent as multipart/form-data to the same endpoint).
 */
function DocumentSource() {
  return (
    <fieldset class="document-source">
      <legend>Document source</legend>
      <label class="inline">
        <input type="radio" name="document-source" value="url" checked readOnly />
        From a URL
      </label>
    </fieldset>
  );
}

interface Outcome {
  status: number;
  body: unknown;
  following?: boolean;
}

export function Playground({ apiKey }: { apiKey: string }) {
  const [mode, setMode] = useState<Mode>('scrape');
  const endpoint = ENDPOINTS[mode];
  const [values, setValues] = useState<Record<Mode, OptionValues>>({ scrape: initialValues(SCRAPE_OPTIONS), parse: initialValues(PARSE_OPTIONS), crawl: initialValues(CRAWL_OPTIONS) });
  const [outcome, setOutcome] = useState<Outcome>();
  /** The crawl the playground started and follows. */
  const [crawlId, setCrawlId] = useState<string>();
  const [problem, setProblem] = useState<string>();
  const [running, setRunning] = useState(false);
  const run = useRef(0);
  useEffect(() => () => void run.current++, []);

  const set = (name: string, value: string | boolean) => setValues({ ...values, [mode]: { ...values[mode], [name]: value } });
  let body: Record<string, unknown> = {};
  let bodyProblem: string | undefined;
  try {
    body = requestBody(endpoint.options, values[mode]);
  } catch (err) {
    bodyProblem = messageOf(err);
  }

  const submit = async (event: Event) => {
    event.preventDefault();
    if (bodyProblem) return setProblem(bodyProblem);
    const mine = ++run.current;
    setProblem(undefined);
    setOutcome(undefined);
    setCrawlId(undefined);
    setRunning(true);
    try {
      let answer = await callApi<Record<string, unknown>>(apiKey, 'POST', endpoint.submitPath, body);
      const id = answer.body && typeof answer.body === 'object' ? endpoint.idOf(answer.body) : undefined;
      if (mode === 'crawl' && answer.status === 202 && id) {
        setOutcome(answer);
        setCrawlId(id);
        return;
      }
      // Slower than the gateway's 20 s window: follow the status endpoint, as a client would.
      const started = Date.now();
      while (answer.status === 202 && id && mine === run.current && Date.now() - started < POLL_FOR_MS) {
        setOutcome({ ...answer, following: true });
        await new Promise((r) => setTimeout(r, POLL_MS));
        const status = await callApi<Record<string, unknown>>(apiKey, 'GET', endpoint.statusPath(id));
        if (status.status !== 200 || !endpoint.stillRunning(status.body)) answer = status;
      }
      if (mine === run.current) setOutcome(answer);
    } catch (err) {
      if (mine === run.current) setProblem(messageOf(err));
    } finally {
      if (mine === run.current) setRunning(false);
    }
  };

  const result = outcome && typeof outcome.body === 'object' && outcome.body ? (outcome.body as Record<string, unknown>) : undefined;
  return (
    <>
      <Section title="Request">
        <div class="tabs" role="group" aria-label="Request kind">
          <button type="button" aria-pressed={mode === 'scrape'} onClick={() => (setMode('scrape'), setOutcome(undefined))}>
            Scrape a page
          </button>
          <button type="button" aria-pressed={mode === 'parse'} onClick={() => (setMode('parse'), setOutcome(undefined))}>
            Parse a document
          </button>
          <button type="button" aria-pressed={mode === 'crawl'} onClick={() => (setMode('crawl'), setOutcome(undefined))}>
            Crawl a site
          </button>
        </div>
        <form class="form" onSubmit={submit} data-mode={mode}>
          {mode === 'parse' && <DocumentSource />}
          {endpoint.options
            .filter((o) => isShown(o, values[mode]))
            .map((o) => (
              <OptionField key={`${mode}-${o.name}`} option={o} values={values[mode]} set={set} />
            ))}
          <button type="submit" disabled={running}>
            {running ? 'Running…' : SUBMIT_LABEL[mode]}
          </button>
        </form>
        <ErrorNote error={problem ?? bodyProblem} />
        <h3>Equivalent curl</h3>
        <TextBlock text={curlCommand(location.origin, endpoint.submitPath, body)} label="Equivalent curl command" />
        <CopyButton text={curlCommand(location.origin, endpoint.submitPath, body)} label="Copy curl" />
      </Section>
      {outcome && (
        <Section title="Result">
          <p data-testid="result-status">
            HTTP {outcome.status}
            {outcome.following ? ' — still processing; following the status endpoint…' : ''}
          </p>
          {outcome.status === 403 && <Notice>The key you signed in with lacks this API's scope: sign in with a key that has it.</Notice>}
          {mode === 'crawl' && crawlId ? (
            <CrawlWatch key={crawlId} apiKey={apiKey} family="crawl" id={crawlId} />
          ) : result ? (
            <ResultTabs text={endpoint.text(result, body)} markdown={endpoint.markdown(result, body)} json={result} />
          ) : (
            <TextBlock text={String(outcome.body)} label="Response" />
          )}
        </Section>
      )}
    </>
  );
}
