import { GleanerCore, type GleanerHttpResponse, type SendRequest, type Sleep, type UploadForm } from './core.js';

export interface GleanerClientOptions {
  /** Gateway base URL, e.g. http://127.0.0.1:8080. */
  baseUrl: string;
  apiKey: string;
  /** Defaults to the global fetch (Node 18+, browsers). */
  fetch?: typeof fetch;
  /**
   * Ends every call and wait of this client when aborted: a call in flight is aborted and a wait
   * between polls rejects with the signal's reason. The requests already accepted go on in Gleaner.
   */
  signal?: AbortSignal;
}

/**
 * The Gleaner client over fetch and timers, for Node and browsers (the CLI uses it). Everything
 * it does is GleanerCore's; this class only supplies the transport.
 */
export class GleanerClient extends GleanerCore {
  constructor(options: GleanerClientOptions) {
    super({ send: fetchSend(options.baseUrl.replace(/\/+$/, ''), options.apiKey, options.fetch ?? globalThis.fetch, options.signal), sleep: timerSleep(options.signal) });
  }
}

function timerSleep(signal: AbortSignal | undefined): Sleep {
  return (ms) =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal!.reason);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
}

function fetchSend(baseUrl: string, apiKey: string, fetchImpl: typeof fetch, signal: AbortSignal | undefined): SendRequest {
  return async ({ method, path, body, form, headers: own }): Promise<GleanerHttpResponse> => {
    const headers: Record<string, string> = { ...own, 'x-api-key': apiKey, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    // fetch streams a FormData's Blob (from disk with fs.openAsBlob) and sets the boundary itself.
    const res = await fetchImpl(baseUrl + path, { method, headers, body: form ? formData(form) : body === undefined ? undefined : JSON.stringify(body), ...(signal ? { signal } : {}) });
    const text = await res.text();
    return { status: res.status, headers: Object.fromEntries(res.headers), body: jsonOrText(text) };
  };
}

function formData(form: UploadForm): FormData {
  const data = new FormData();
  for (const [name, value] of Object.entries(form.fields)) data.set(name, value);
  const { field, name, data: file } = form.file;
  data.set(field, file instanceof Blob ? file : new Blob([file as Uint8Array<ArrayBuffer>]), name);
  return data;
}

function jsonOrText(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
