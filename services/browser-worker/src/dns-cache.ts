import dns from 'node:dns';
import type { LookupFunction } from 'node:net';

type Answer = { err: NodeJS.ErrnoException | null; addresses: dns.LookupAddress[] };
type Callback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;
/** A caller waiting for a name's answer, in the form it asked for. */
type Waiter = (answer: Answer) => void;

/** Answers kept: long enough for the pages rendered back to back that share their hosts (CDNs, ads). */
const ANSWER_TTL_MS = 60_000;
/** A name that does not exist is asked again sooner: it may be about to. */
const MISSING_TTL_MS = 10_000;
/** Failures that say nothing about the name (a resolver down or slow) are not kept. */
const KEPT_FAILURES = new Set(['ENOTFOUND', 'ENODATA']);
const MAX_NAMES = 2_000;

/**
 * The filtering proxy's resolver: Chromium resolves nothing itself behind a proxy, so without this
 * every connection of every page (a page opens dozens, to the same few hosts) is a getaddrinfo
 * call on libuv's four threads. Lookups of one name at once share one call; answers are kept for
 * a minute (Chromium's own host cache keeps system answers as long), missing names for 10 s.
 * What the cache returns is still judged by the address policy on every connection, and the
 * connection goes to the address judged, so it cannot let DNS rebinding through.
 */
export function cachingLookup(now: () => number = Date.now): LookupFunction {
  const answers = new Map<string, { answer: Answer; until: number }>();
  const pending = new Map<string, Waiter[]>();

  const deliver = (answer: Answer, options: dns.LookupOptions, callback: Callback) => {
    if (answer.err) return callback(answer.err, options.all ? [] : '');
    const wanted = options.family === 4 || options.family === 6 ? answer.addresses.filter((a) => a.family === options.family) : answer.addresses;
    if (wanted.length === 0) return callback(Object.assign(new Error(`no IPv${options.family} address`), { code: 'ENODATA' }), options.all ? [] : '');
    if (options.all) callback(null, wanted);
    else callback(null, wanted[0].address, wanted[0].family);
  };

  return ((hostname: string, options: dns.LookupOptions | Callback, maybeCallback?: Callback) => {
    const callback = (typeof options === 'function' ? options : maybeCallback) as Callback;
    const opts: dns.LookupOptions = typeof options === 'object' && options !== null ? options : {};
    const name = hostname.toLowerCase();
    const answerCaller: Waiter = (answer) => deliver(answer, opts, callback);
    const kept = answers.get(name);
    if (kept && kept.until > now()) return process.nextTick(answerCaller, kept.answer);
    const waiting = pending.get(name);
    if (waiting) return void waiting.push(answerCaller);
    const waiters = [answerCaller];
    pending.set(name, waiters);
    // Every address, whatever the caller asked for: one answer serves both families and `all`.
    dns.lookup(name, { all: true, hints: opts.hints }, (err, addresses) => {
      pending.delete(name);
      const answer: Answer = { err, addresses: err ? [] : addresses };
      const ttl = !err ? ANSWER_TTL_MS : KEPT_FAILURES.has(err.code ?? '') ? MISSING_TTL_MS : 0;
      if (ttl > 0) {
        answers.delete(name);
        answers.set(name, { answer, until: now() + ttl });
        // Oldest first in a Map: past the bound, the name kept longest goes.
        if (answers.size > MAX_NAMES) answers.delete(answers.keys().next().value!);
      }
      for (const waiter of waiters) waiter(answer);
    });
  }) as unknown as LookupFunction;
}
