import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A local stand-in for a UChat-family bot platform API, written from
 * /work/shared/contracts/bot-platform.md (§3.1-3.9, §7). It keeps subscribers, user-field
 * definitions and sub flows in memory, records every request, and can be told to misbehave:
 * a queue of faults per route, switchable response shapes and not-found styles. Like the real
 * API it checks the token and the JSON headers first (a fault never hides a bad token), and
 * counts every authenticated request against a per-token window (contract §5: 1000 an hour),
 * reporting it in `x-ratelimit-*` headers and answering 429 with `retry-after` when it is used up.
 */

export type NotFoundStyle = 'status-400' | 'status-404' | 'empty-200';

export interface FakeBotPlatformSettings {
  /** Contract §2: clients see `{"status":"ok","data":{…}}`; the spec declares the bare object. */
  wrapSingleObjects: boolean;
  /** Contract §3.1: the real "not found" answer is unknown, so all three are offered. */
  notFound: NotFoundStyle;
  /** Contract §3.4: one author observed 201 on create. */
  createStatus: 200 | 201;
  /** Contract §1: JSON content negotiation is required on every call, GET included. */
  requireJsonHeaders: boolean;
  /** Requests per token per window before 429 (contract §5 cites 1000/hour). */
  rateLimit: number;
  /** Length of the fixed rate-limit window, aligned to the epoch. */
  rateWindowSeconds: number;
}

export interface FakeSubscriber {
  user_ns: string;
  /** Channel user id (WhatsApp: digits without `+`); null for a subscriber without a channel id. */
  user_id: string | null;
  /** Stored exactly as given: the phone search is an exact, whitespace-sensitive match. */
  phone: string;
  name: string;
  user_fields: Record<string, string>;
}

export interface FakeUserField {
  name: string;
  var_type?: 'text' | 'number' | 'boolean' | 'date' | 'datetime' | 'array' | 'longtext';
  description?: string;
}

export interface FakeSubFlow {
  name: string;
  sub_flow_ns: string;
}

export type FakeFault =
  | { status: number; body?: unknown; headers?: Record<string, string> }
  /** An HTML error page with this status, as a proxy in front of the API sends (502, 503, 504…). */
  | { status: number; html: true }
  /** Accepts the request and never answers. */
  | { hang: true }
  /** Drops the connection without an answer (a network error for the client). */
  | { reset: true };

export interface RecordedRequest {
  method: string;
  /** Path below the base URL, e.g. `/subscriber/create`. */
  path: string;
  query: Record<string, string | string[]>;
  /** Parsed JSON body, or undefined when empty or not JSON. */
  body: unknown;
  rawBody: string;
  headers: http.IncomingHttpHeaders;
  at: number;
  answeredWith: number | 'hang' | 'reset';
}

export interface FakeBotPlatformOptions extends Partial<FakeBotPlatformSettings> {
  tokens: string[];
  subscribers?: Array<{ phone: string; user_id?: string | null; user_ns?: string; name?: string; user_fields?: Record<string, string> }>;
  userFields?: FakeUserField[];
  subFlows?: FakeSubFlow[];
  /** The bot id used inside generated namespaces (`f<bot>u<id>`). */
  botId?: number;
  /** Address to listen on (default 127.0.0.1; the deploy test's containers reach a host address). */
  host?: string;
}

export interface FakeBotPlatform {
  /** Base URL ending in `/api`, like every real brand's. */
  baseUrl: string;
  settings: FakeBotPlatformSettings;
  requests: RecordedRequest[];
  subscribers: Map<string, FakeSubscriber>;
  sentFlows: Array<{ user_ns: string; sub_flow_ns: string }>;
  /** Requests for one route, written `'GET /subscribers'`. */
  requestsTo(route: string): RecordedRequest[];
  /** The next `times` requests to `route` (`'METHOD /path'`) get `fault` instead of an answer. */
  failNext(route: string, fault: FakeFault, times?: number): void;
  clearFaults(): void;
  addSubscriber(input: NonNullable<FakeBotPlatformOptions['subscribers']>[number]): FakeSubscriber;
  addUserField(field: FakeUserField): void;
  addSubFlow(flow: FakeSubFlow): void;
  close(): Promise<void>;
}

const MAX_FIELDS_PER_CALL = 20;

interface ApiAnswer {
  status: number;
  body: unknown;
}

const fail = (status: number, message: string): ApiAnswer => ({ status, body: { message } });

function queryOf(url: URL): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const key of new Set(url.searchParams.keys())) {
    const all = url.searchParams.getAll(key);
    query[key] = all.length === 1 ? all[0] : all;
  }
  return query;
}

function page<T>(items: T[], url: URL): ApiAnswer {
  const limit = Math.min(100, Math.max(1, Number(url.searchParams.get('limit') ?? 15) || 15));
  const current = Math.max(1, Number(url.searchParams.get('page') ?? 1) || 1);
  const lastPage = Math.max(1, Math.ceil(items.length / limit));
  return {
    status: 200,
    body: {
      data: items.slice((current - 1) * limit, current * limit),
      links: { first: null, last: null, prev: null, next: current < lastPage ? `?page=${current + 1}` : null },
      meta: { current_page: current, last_page: lastPage, per_page: limit, total: items.length },
    },
  };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const nonEmptyString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

export async function startFakeBotPlatform(options: FakeBotPlatformOptions): Promise<FakeBotPlatform> {
  const settings: FakeBotPlatformSettings = {
    wrapSingleObjects: options.wrapSingleObjects ?? true,
    notFound: options.notFound ?? 'status-400',
    createStatus: options.createStatus ?? 200,
    requireJsonHeaders: options.requireJsonHeaders ?? true,
    rateLimit: options.rateLimit ?? 1000,
    rateWindowSeconds: options.rateWindowSeconds ?? 3600,
  };
  const botId = options.botId ?? 190385;
  const tokens = new Set(options.tokens);
  /** Requests per token in its current window. */
  const used = new Map<string, { window: number; count: number }>();
  const requests: RecordedRequest[] = [];
  const subscribers = new Map<string, FakeSubscriber>();
  const userFields = new Map<string, Required<FakeUserField> & { var_ns: string }>();
  const subFlows = new Map<string, FakeSubFlow>();
  const sentFlows: Array<{ user_ns: string; sub_flow_ns: string }> = [];
  const faults: Array<{ route: string; fault: FakeFault; remaining: number }> = [];
  let nextId = 761661861;

  const addSubscriber: FakeBotPlatform['addSubscriber'] = (input) => {
    const sub: FakeSubscriber = {
      user_ns: input.user_ns ?? `f${botId}u${nextId++}`,
      user_id: input.user_id === undefined ? input.phone.replace(/\D/g, '') : input.user_id,
      phone: input.phone,
      name: input.name ?? '',
      user_fields: { ...input.user_fields },
    };
    subscribers.set(sub.user_ns, sub);
    return sub;
  };
  const addUserField = (field: FakeUserField): void => {
    userFields.set(field.name, { var_type: 'text', description: '', ...field, var_ns: `f${botId}v${nextId++}` });
  };
  const addSubFlow = (flow: FakeSubFlow): void => void subFlows.set(flow.sub_flow_ns, flow);
  options.subscribers?.forEach(addSubscriber);
  options.userFields?.forEach(addUserField);
  options.subFlows?.forEach(addSubFlow);

  const botUser = (sub: FakeSubscriber): Record<string, unknown> => ({
    user_ns: sub.user_ns,
    user_id: sub.user_id,
    name: sub.name,
    first_name: sub.name.split(' ')[0] ?? '',
    last_name: sub.name.split(' ').slice(1).join(' '),
    phone: sub.phone,
    email: '',
    subscribed: '2024-01-01 00:00:00',
    tags: [],
    user_fields: [...userFields.values()].map((f) => ({ var_ns: f.var_ns, name: f.name, var_type: f.var_type, value: sub.user_fields[f.name] ?? '' })),
    channels: sub.user_id ? [{ type: 'whatsapp_cloud', user_id: sub.user_id }] : [],
  });
  const single = (sub: FakeSubscriber, status = 200): ApiAnswer => ({
    status,
    body: settings.wrapSingleObjects ? { status: 'ok', data: botUser(sub) } : botUser(sub),
  });
  const subscriberNotFound = (): ApiAnswer => {
    if (settings.notFound === 'empty-200') return { status: 200, body: { status: 'ok' } };
    return fail(settings.notFound === 'status-404' ? 404 : 400, 'Subscriber not found.');
  };
  const ok = (): ApiAnswer => ({ status: 200, body: { status: 'ok' } });

  // Field names are checked before anything is written, so a rejected call changes nothing.
  const unknownField = (names: string[]): ApiAnswer | null => {
    const unknown = names.find((n) => !userFields.has(n));
    return unknown === undefined ? null : fail(422, `The user field "${unknown}" does not exist.`);
  };

  const routes: Record<string, (url: URL, body: unknown) => ApiAnswer> = {
    'GET /subscriber/get-info-by-user-id': (url) => {
      const userId = url.searchParams.get('user_id');
      if (!userId) return fail(422, 'The user id field is required.');
      const sub = [...subscribers.values()].find((s) => s.user_id === userId);
      return sub ? single(sub) : subscriberNotFound();
    },
    'GET /subscriber/get-info': (url) => {
      const userNs = url.searchParams.get('user_ns');
      if (!userNs) return fail(422, 'The user ns field is required.');
      const sub = subscribers.get(userNs);
      return sub ? single(sub) : subscriberNotFound();
    },
    'GET /subscribers': (url) => {
      const phone = url.searchParams.get('phone');
      const name = url.searchParams.get('name')?.toLowerCase();
      const matches = [...subscribers.values()].filter((s) => (phone === null || s.phone === phone) && (name === undefined || s.name.toLowerCase().includes(name)));
      return page(matches.map(botUser), url);
    },
    'POST /subscriber/create': (_url, body) => {
      if (!isRecord(body) || (!nonEmptyString(body.phone) && !nonEmptyString(body.email))) return fail(422, 'The phone or email field is required.');
      // Contract §3.4: duplicate creates are tolerated and each makes a new subscriber.
      const sub = addSubscriber({ phone: nonEmptyString(body.phone) ? body.phone : '', name: typeof body.name === 'string' ? body.name : undefined });
      if (!nonEmptyString(body.phone)) sub.user_id = null;
      return single(sub, settings.createStatus);
    },
    'PUT /subscriber/set-user-fields-by-name': (_url, body) => {
      if (!isRecord(body) || !nonEmptyString(body.user_ns)) return fail(422, 'The user ns field is required.');
      if (!Array.isArray(body.data) || body.data.length === 0) return fail(422, 'The data field is required.');
      if (body.data.length > MAX_FIELDS_PER_CALL) return fail(422, `The data may not have more than ${MAX_FIELDS_PER_CALL} items.`);
      const items = body.data as unknown[];
      for (const [i, item] of items.entries()) {
        if (!isRecord(item) || !nonEmptyString(item.name)) return fail(422, `The data.${i}.name field is required.`);
        if (typeof item.value !== 'string') return fail(422, `The data.${i}.value must be a string.`);
      }
      const named = items as Array<{ name: string; value: string }>;
      const sub = subscribers.get(body.user_ns);
      if (!sub) return fail(400, 'Subscriber not found.');
      const rejected = unknownField(named.map((i) => i.name));
      if (rejected) return rejected;
      for (const item of named) sub.user_fields[item.name] = item.value;
      return ok();
    },
    'PUT /subscriber/set-user-field-by-name': (_url, body) => {
      if (!isRecord(body) || !nonEmptyString(body.user_ns)) return fail(422, 'The user ns field is required.');
      if (!nonEmptyString(body.field_name)) return fail(422, 'The field name field is required.');
      if (typeof body.value !== 'string') return fail(422, 'The value must be a string.');
      const sub = subscribers.get(body.user_ns);
      if (!sub) return fail(400, 'Subscriber not found.');
      const rejected = unknownField([body.field_name]);
      if (rejected) return rejected;
      sub.user_fields[body.field_name] = body.value;
      return ok();
    },
    'POST /subscriber/send-sub-flow': (_url, body) => {
      if (!isRecord(body) || !nonEmptyString(body.user_ns)) return fail(422, 'The user ns field is required.');
      if (!nonEmptyString(body.sub_flow_ns)) return fail(422, 'The sub flow ns field is required.');
      if (!subscribers.has(body.user_ns)) return fail(400, 'Subscriber not found.');
      if (!subFlows.has(body.sub_flow_ns)) return fail(400, 'Sub flow not found.');
      sentFlows.push({ user_ns: body.user_ns, sub_flow_ns: body.sub_flow_ns });
      return ok();
    },
    'POST /subscriber/send-sub-flow-by-user-id': (_url, body) => {
      if (!isRecord(body) || !nonEmptyString(body.user_id)) return fail(422, 'The user id field is required.');
      if (!nonEmptyString(body.sub_flow_ns)) return fail(422, 'The sub flow ns field is required.');
      const sub = [...subscribers.values()].find((s) => s.user_id === body.user_id);
      if (!sub) return fail(400, 'Subscriber not found.');
      if (!subFlows.has(body.sub_flow_ns)) return fail(400, 'Sub flow not found.');
      sentFlows.push({ user_ns: sub.user_ns, sub_flow_ns: body.sub_flow_ns });
      return ok();
    },
    'GET /flow/user-fields': (url) => {
      const name = url.searchParams.get('name')?.toLowerCase();
      const fields = [...userFields.values()].filter((f) => name === undefined || f.name.toLowerCase().includes(name));
      return page(fields.map((f) => ({ name: f.name, var_ns: f.var_ns, var_type: f.var_type, description: f.description })), url);
    },
    'GET /flow/subflows': (url) => {
      const name = url.searchParams.get('name')?.toLowerCase();
      return page([...subFlows.values()].filter((f) => name === undefined || f.name.toLowerCase().includes(name)), url);
    },
  };

  const takeFault = (route: string): FakeFault | undefined => {
    const index = faults.findIndex((f) => f.route === route);
    if (index < 0) return undefined;
    const entry = faults[index];
    if (--entry.remaining <= 0) faults.splice(index, 1);
    return entry.fault;
  };

  const bearerOf = (req: http.IncomingMessage): string | undefined => {
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    return bearer !== undefined && tokens.has(bearer) ? bearer : undefined;
  };

  const windowOf = (now: number) => Math.floor(now / 1000 / settings.rateWindowSeconds);
  const windowEnd = (window: number) => (window + 1) * settings.rateWindowSeconds;
  /** Counts one request against the token's window; the answer's rate headers, and whether it is over. */
  const countRequest = (bearer: string): { over: boolean; headers: Record<string, string> } => {
    const now = Date.now();
    const window = windowOf(now);
    const entry = used.get(bearer);
    const count = entry && entry.window === window ? entry.count + 1 : 1;
    used.set(bearer, { window, count });
    const headers: Record<string, string> = {
      'x-ratelimit-limit': String(settings.rateLimit),
      'x-ratelimit-remaining': String(Math.max(0, settings.rateLimit - count)),
      'x-ratelimit-reset': String(windowEnd(window)),
    };
    const over = count > settings.rateLimit;
    if (over) headers['retry-after'] = String(Math.max(1, Math.ceil(windowEnd(window) - now / 1000)));
    return { over, headers };
  };

  /** As the real API does, before any fault or route: the token, the JSON headers, then the count. */
  const gate = (req: http.IncomingMessage): { refused?: ApiAnswer; headers: Record<string, string> } => {
    const bearer = bearerOf(req);
    if (bearer === undefined) return { refused: fail(401, 'Unauthenticated.'), headers: {} };
    if (settings.requireJsonHeaders) {
      if (!(req.headers.accept ?? '').includes('application/json')) return { refused: fail(406, 'The API only speaks JSON: send Accept: application/json.'), headers: {} };
      if (!(req.headers['content-type'] ?? '').includes('application/json')) return { refused: fail(415, 'Send Content-Type: application/json.'), headers: {} };
    }
    const { over, headers } = countRequest(bearer);
    return over ? { refused: fail(429, 'Too Many Attempts.'), headers } : { headers };
  };

  const proxyPage = (status: number) =>
    `<!DOCTYPE html>\n<html><head><title>${status} ${http.STATUS_CODES[status] ?? 'Error'}</title></head><body><center><h1>${status} ${http.STATUS_CODES[status] ?? 'Error'}</h1></center><hr><center>nginx</center></body></html>\n`;

  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', 'http://fake.invalid');
      const isApi = url.pathname.startsWith('/api/');
      const path = isApi ? url.pathname.slice('/api'.length) : url.pathname;
      const body = { json: undefined as unknown, invalid: false };
      try {
        body.json = rawBody ? JSON.parse(rawBody) : undefined;
      } catch {
        body.invalid = true;
      }
      const record: RecordedRequest = { method: req.method ?? '', path, query: queryOf(url), body: body.json, rawBody, headers: req.headers, at: Date.now(), answeredWith: 0 };
      requests.push(record);

      const html404 = (headers: Record<string, string> = {}) => {
        // Contract §2: a non-API route answers with an HTML page, not JSON.
        record.answeredWith = 404;
        res.writeHead(404, { 'content-type': 'text/html; charset=UTF-8', ...headers }).end('<!doctype html><html><body><h1>404 | Not Found</h1></body></html>');
      };
      const json = (status: number, payload: unknown, headers: Record<string, string>) => {
        record.answeredWith = status;
        res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(payload));
      };
      if (!isApi) return html404();

      const { refused, headers: rateHeaders } = gate(req);
      if (refused) return json(refused.status, refused.body, rateHeaders);

      const fault = takeFault(`${record.method} ${path}`);
      if (fault && 'hang' in fault) {
        record.answeredWith = 'hang';
        return;
      }
      if (fault && 'reset' in fault) {
        record.answeredWith = 'reset';
        req.socket.destroy();
        return;
      }
      if (fault && 'html' in fault) {
        record.answeredWith = fault.status;
        res.writeHead(fault.status, { 'content-type': 'text/html', ...rateHeaders }).end(proxyPage(fault.status));
        return;
      }
      if (fault) return json(fault.status, fault.body ?? { message: 'Server Error' }, { ...rateHeaders, ...fault.headers });

      const handler = routes[`${req.method} ${path}`];
      if (!handler) return html404(rateHeaders);
      const result = body.invalid ? fail(400, 'The request body is not valid JSON.') : handler(url, body.json);
      json(result.status, result.body, rateHeaders);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(0, host, resolve));

  return {
    baseUrl: `http://${host}:${(server.address() as AddressInfo).port}/api`,
    settings,
    requests,
    subscribers,
    sentFlows,
    requestsTo: (route) => requests.filter((r) => `${r.method} ${r.path}` === route),
    failNext: (route, fault, times = 1) => void faults.push({ route, fault, remaining: times }),
    clearFaults: () => void faults.splice(0),
    addSubscriber,
    addUserField,
    addSubFlow,
    // Hanging requests keep their sockets open, so they are destroyed rather than awaited.
    close: () =>
      new Promise<void>((resolve) => {
        sockets.forEach((s) => s.destroy());
        server.close(() => resolve());
      }),
  };
}
