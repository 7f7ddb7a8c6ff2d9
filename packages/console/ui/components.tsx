import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';

export function formatTime(unixSeconds: number | undefined): string {
  if (unixSeconds === undefined) return '—';
  return `${new Date(unixSeconds * 1000).toISOString().replace('T', ' ').slice(0, 16)} UTC`;
}

export function formatDuration(ms: number | undefined): string {
  if (ms === undefined) return '—';
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export interface Loaded<T> {
  data?: T;
  error?: string;
  loading: boolean;
  reload: () => void;
}

/** Runs `load` now and on `reload()`; the latest answer wins. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: string; loading: boolean }>({ loading: true });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => current && setState({ data, loading: false }),
      (err: unknown) => current && setState({ error: messageOf(err), loading: false }),
    );
    return () => {
      current = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { ...state, reload };
}

/**
 * The problem of the section's last action, and `run`, which clears it, runs an action and keeps
 * the action's error message as the problem (an answer's message names the field or the code).
 */
export function useAction(): { problem?: string; run: (action: () => Promise<void>) => Promise<void> } {
  const [problem, setProblem] = useState<string>();
  const run = useCallback(async (action: () => Promise<void>) => {
    setProblem(undefined);
    try {
      await action();
    } catch (err) {
      setProblem(messageOf(err));
    }
  }, []);
  return { problem, run };
}

export function ErrorNote({ error }: { error?: string }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {error}
    </p>
  );
}

export function Notice({ children }: { children: ComponentChildren }) {
  return (
    <p class="notice" role="status">
      {children}
    </p>
  );
}

export function Section({ title, children, actions }: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <section class="card" aria-label={title}>
      <div class="card-head">
        <h2>{title}</h2>
        {actions}
      </div>
      {children}
    </section>
  );
}

/** Copies `text`; says so in a live region (screen readers hear it). */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState<string>('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied('Copied');
    } catch {
      setCopied('Copy failed: select the text and copy it');
    }
  };
  return (
    <span class="copy">
      <button type="button" onClick={copy}>
        {label}
      </button>
      <span class="copy-state" aria-live="polite">
        {copied}
      </span>
    </span>
  );
}

/** Text exactly as given, in a scrollable block: never parsed as HTML. */
export function TextBlock({ text, label }: { text: string; label: string }) {
  return (
    <pre class="text-block" tabIndex={0} aria-label={label}>
      {text}
    </pre>
  );
}

export type ResultView = 'text' | 'markdown' | 'json';

/** A result as text, markdown or JSON, every one shown as plain text. */
export function ResultTabs({ text, markdown, json }: { text?: string; markdown?: string; json: unknown }) {
  const [chosen, setChosen] = useState<ResultView>();
  const views: ResultView[] = [...(text !== undefined ? ['text' as const] : []), ...(markdown !== undefined ? ['markdown' as const] : []), 'json'];
  const view = chosen && views.includes(chosen) ? chosen : views[0];
  const names: Record<ResultView, string> = { text: 'Text', markdown: 'Markdown', json: 'JSON' };
  return (
    <>
      <div class="tabs" role="group" aria-label="Result as">
        {views.map((v) => (
          <button key={v} type="button" aria-pressed={v === view} onClick={() => setChosen(v)}>
            {names[v]}
          </button>
        ))}
      </div>
      <div data-testid="result-view" data-view={view}>
        {view === 'text' && <TextBlock text={text ?? ''} label="Extracted text" />}
        {view === 'markdown' && <TextBlock text={markdown ?? ''} label="Extracted markdown" />}
        {view === 'json' && <TextBlock text={JSON.stringify(json, null, 2)} label="JSON response" />}
      </div>
    </>
  );
}
