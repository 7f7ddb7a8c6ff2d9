import { useEffect, useRef, useState } from 'preact/hooks';
import type { CrawlCounts, CrawlPage as CrawlResult, CrawlStatus as CrawlState } from '@gleaner/client/core';
import { callApi } from '../api.js';
import { ErrorNote, messageOf, Notice, ResultTabs } from '../components.js';

/**
 * Crawls, batches and maps in the console: their counts, their results (a page's text and
 * markdown on demand) and cancel, shared by the Requests detail and the Playground. Their
 * shapes are the API's, as the TypeScript client types them.
 */
export type { CrawlCounts };

/** How often a running crawl is read again. */
export const CRAWL_REFRESH_MS = 1_500;

/**
 * Runs `step` now, and again CRAWL_REFRESH_MS after each run that answers true (the crawl still
 * runs), until `deps` change or the view goes; `step` is told whether its answer is still wanted.
 * The problem of a failed run is returned (and ends the runs).
 */
function useRefreshing(step: (wanted: () => boolean) => Promise<boolean>, deps: unknown[]): string | undefined {
  const [problem, setProblem] = useState<string>();
  useEffect(() => {
    let wanted = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = async () => {
      try {
        if ((await step(() => wanted)) && wanted) timer = setTimeout(run, CRAWL_REFRESH_MS);
      } catch (err) {
        if (wanted) setProblem(messageOf(err));
      }
    };
    setProblem(undefined);
    void run();
    return () => {
      wanted = false;
      clearTimeout(timer);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
  return problem;
}

export function CrawlCountsView({ state }: { state: Pick<CrawlState, 'status' | 'reason' | 'error' | 'counts'> }) {
  const { counts } = state;
  const why = Object.entries(counts.skipped_by ?? {}).filter(([, n]) => n > 0);
  return (
    <dl class="stats" data-testid="crawl-counts">
      <div>
        <dt>Status</dt>
        <dd>
          <span class={`badge status-${state.status}`} data-testid="crawl-status">
            {state.status}
          </span>{' '}
          <span class="muted">{state.error ?? state.reason ?? ''}</span>
        </dd>
      </div>
      {(['completed', 'failed', 'skipped', 'queued', 'discovered'] as const).map((name) => (
        <div key={name}>
          <dt>{name === 'completed' ? 'Pages read' : name === 'discovered' ? 'URLs found' : name[0].toUpperCase() + name.slice(1)}</dt>
          <dd data-count={name}>
            {name === 'queued' ? counts.queued + counts.processing : counts[name]}
            {name === 'skipped' && why.length > 0 && <span class="muted"> ({why.map(([reason, n]) => `${reason.replace(/_/g, ' ')} ${n}`).join(', ')})</span>}
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** The results from `first` (0-based) on: a row each, and the chosen page's text and markdown below. */
export function CrawlResultsTable({ results, first = 0 }: { results: CrawlResult[]; first?: number }) {
  const [shown, setShown] = useState<number>();
  const chosen = shown !== undefined ? results[shown - first] : undefined;
  return (
    <>
      <div class="table-wrap">
        <table class="crawl-results" aria-label="Crawl results">
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">URL</th>
              <th scope="col">Status</th>
              <th scope="col">Title, error or reason</th>
            </tr>
          </thead>
          <tbody>
            {results.length === 0 && (
              <tr>
                <td colSpan={4} class="empty">
                  No results listed yet.
                </td>
              </tr>
            )}
            {results.map((r, i) => (
              <tr key={`${first + i}`} data-result={first + i + 1} data-url={r.url}>
                <td>{first + i + 1}</td>
                <td class="mono wrap">{r.url}</td>
                <td>
                  <span class={`badge status-${r.status}`}>{r.status}</span>
                </td>
                <td class="wrap">
                  {r.status === 'completed' ? (
                    <button type="button" onClick={() => setShown(first + i)} aria-pressed={shown === first + i}>
                      {r.content.meta?.title || 'Show page'}
                    </button>
                  ) : r.status === 'failed' ? (
                    r.error
                  ) : (
                    r.reason
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {chosen?.status === 'completed' && (
        <div data-testid="crawl-page">
          <h3>
            Page {shown! + 1}: <span class="mono wrap">{chosen.url}</span>
          </h3>
          <ResultTabs text={chosen.content.text} markdown={chosen.content.markdown} json={chosen} />
        </div>
      )}
    </>
  );
}

/**
 * Stops a running crawl or batch (`DELETE /web-scrapper/{family}/{id}`, the key's scrape scope),
 * then `onCancelled`.
 */
export function CancelCrawlButton({ apiKey, family, id, onCancelled }: { apiKey: string; family: 'crawl' | 'batch'; id: string; onCancelled: () => void }) {
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState(false);
  const cancel = async () => {
    setBusy(true);
    setProblem(undefined);
    try {
      const answer = await callApi<{ error?: string }>(apiKey, 'DELETE', `/web-scrapper/${family}/${encodeURIComponent(id)}`);
      if (answer.status === 403) setProblem(`The key you signed in with lacks the scrape scope, which cancelling a ${family} needs.`);
      else if (answer.status !== 200) setProblem(answer.body?.error ?? `HTTP ${answer.status}`);
      else onCancelled();
    } catch (err) {
      setProblem(messageOf(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button type="button" class="danger" onClick={cancel} disabled={busy}>
        {busy ? 'Cancelling…' : `Cancel ${family}`}
      </button>
      {problem && <Notice>{problem}</Notice>}
    </>
  );
}

/**
 * Follows a crawl or batch the playground started: its counts, and every result as it is listed
 * (read from the status endpoint by cursor), until it ends; a Cancel button while it runs.
 */
export function CrawlWatch({ apiKey, family, id }: { apiKey: string; family: 'crawl' | 'batch'; id: string }) {
  const [state, setState] = useState<CrawlState>();
  const [results, setResults] = useState<CrawlResult[]>([]);
  const [round, setRound] = useState(0);
  /** What was read so far, and where to read on (kept across a restart after Cancel). */
  const gathered = useRef({ results: [] as CrawlResult[], cursor: '0' }).current;
  const problem = useRefreshing(
    async (wanted) => {
      for (;;) {
        const answer = await callApi<CrawlState & { error?: string }>(apiKey, 'GET', `/web-scrapper/${family}/${encodeURIComponent(id)}?cursor=${gathered.cursor}`);
        if (!wanted()) return false;
        if (answer.status !== 200) throw new Error(answer.body?.error ?? `HTTP ${answer.status}`);
        gathered.results.push(...answer.body.pages);
        setResults([...gathered.results]);
        setState(answer.body);
        if (answer.body.next === null) return false;
        gathered.cursor = answer.body.next;
        // Results came: more may be listed already, read on at once; none: come back later.
        if (answer.body.pages.length === 0) return true;
      }
    },
    [apiKey, family, id, round],
  );
  return (
    <div data-testid="crawl-watch" data-request-id={id}>
      <p>
        Request <span class="mono">{id}</span> (<a href={`#/requests/${id}`}>in Requests</a>)
      </p>
      {state && <CrawlCountsView state={state} />}
      {state?.status === 'processing' && (
        <p class="row">
          <CancelCrawlButton apiKey={apiKey} family={family} id={id} onCancelled={() => setRound((r) => r + 1)} />
        </p>
      )}
      <ErrorNote error={problem} />
      <CrawlResultsTable results={results} />
    </div>
  );
}

/** A map's URLs, with titles where known. */
export function MapLinksTable({ links }: { links: Array<{ url: string; title?: string }> }) {
  return (
    <div class="table-wrap">
      <table aria-label="Map links">
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">URL</th>
            <th scope="col">Title</th>
          </tr>
        </thead>
        <tbody>
          {links.map((l, i) => (
            <tr key={l.url}>
              <td>{i + 1}</td>
              <td class="mono wrap">{l.url}</td>
              <td class="wrap">{l.title ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Results a page of the Requests detail shows. */
const RESULTS_PER_PAGE = 25;

/**
 * A crawl's or batch's detail in Requests: its counts and its results a page at a time (read
 * through `/account/requests/{id}?cursor=`, the account scope), read again while it runs, and
 * Cancel while it runs.
 */
export function SiteJobDetail({ apiKey, family, id }: { apiKey: string; family: 'crawl' | 'batch'; id: string }) {
  const [cursor, setCursor] = useState(0);
  /** The latest answer and the cursor it was read from (the page shown until the next one arrives). */
  const [loaded, setLoaded] = useState<{ from: number; state: CrawlState }>();
  const [round, setRound] = useState(0);
  const problem = useRefreshing(
    async (wanted) => {
      const answer = await callApi<{ response: CrawlState; error?: string }>(apiKey, 'GET', `/account/requests/${encodeURIComponent(id)}?cursor=${cursor}&limit=${RESULTS_PER_PAGE}`);
      if (!wanted()) return false;
      if (answer.status !== 200) throw new Error(answer.body?.error ?? `HTTP ${answer.status}`);
      setLoaded({ from: cursor, state: answer.body.response });
      return answer.body.response.status === 'processing';
    },
    [apiKey, id, cursor, round],
  );
  const state = loaded?.state;
  const from = loaded?.from ?? 0;
  const next = state?.next !== null && state?.next !== undefined && state.pages.length === RESULTS_PER_PAGE ? Number(state.next) : undefined;
  return (
    <div data-testid="site-job-detail">
      <ErrorNote error={problem} />
      {state && <CrawlCountsView state={state} />}
      {state?.status === 'processing' && (
        <p class="row">
          <CancelCrawlButton apiKey={apiKey} family={family} id={id} onCancelled={() => setRound((r) => r + 1)} />
        </p>
      )}
      <h3>Results {state && state.pages.length > 0 ? `${from + 1} to ${from + state.pages.length}` : ''}</h3>
      {state && <CrawlResultsTable key={from} results={state.pages} first={from} />}
      <p class="row">
        {from > 0 && (
          <button type="button" onClick={() => setCursor(Math.max(0, from - RESULTS_PER_PAGE))}>
            Previous results
          </button>
        )}
        {next !== undefined && (
          <button type="button" onClick={() => setCursor(next)}>
            Next results
          </button>
        )}
      </p>
    </div>
  );
}
