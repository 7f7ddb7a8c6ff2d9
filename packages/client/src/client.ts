import { GleanerCore, type GleanerHttpResponse, type SendRequest, type Sleep, type UploadForm } from './core.js';

export interface GleanerClientOptions {
  /** Gateway base URL, e.g. http://127.0.0.1:8080. */
  baseUrl: string;
  apiKey: string;
  /** Defaults to the global fetch (Node 18+, browsers). */
  fetch?: typeof fetch;
}

/**
 * The Gleaner client over fetch and timers, for Node and browsers (the CLI uses it). Everything
 * it does is GleanerCore's; this class only supplies the transport.
 */
export class GleanerClient extends GleanerCore {
  constructor(options: GleanerClientOptions) {
    super({ send: fetchSend(options.baseUrl.replace(/\/+$/, ''), options.apiKey, options.fetch ?? globalThis.fetch), sleep: timerSleep });
  }
}

const timerSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function fetchSend(baseUrl: string, apiKey: string, fetchImpl: typeof fetch): SendRequest {
  return async ({ method, path, body, form }): Promise<GleanerHttpResponse> => {
    const headers: Record<string, string> = { 'x-api-key': apiKey, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    // fetch streams a FormData's Blob (from disk with fs.openAsBlob) and sets the boundary itself.
    const res = await fetchImpl(baseUrl + path, { method, headers, body: form ? formData(form) : body === undefined ? undefined : JSON.stringify(body) });
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
