/**
 * Loaded with `--import` into a service process under test (never shipped): a stand-in for the
 * public internet, read from GLEANER_TEST_SIMULATED_INTERNET = {hosts, nat}. Plain JavaScript so
 * that worker threads, which inherit `--import` but not the tsx loader, can load it too.
 *
 * - `hosts`: DNS answers for made-up names (`public.gleaner-test` → 93.184.215.14). Other names
 *   go to the real resolver, unless `*` gives the answer for every other name (`[]`: none
 *   exists). Each process gets its own table, so the gateway and a worker can be
 *   told different things about one name (DNS rebinding between submit and fetch).
 * - `nat`: public addresses that are "routed" to a local one (93.184.215.14 → 127.0.0.1, same
 *   port), so a local server can play a public site. The rewrite happens in Socket#connect, below
 *   the SSRF guard: the guard still sees and judges the public address, and an address the guard
 *   refuses is never rewritten into an allowed one.
 */
import dns from 'node:dns';
import net from 'node:net';

const config = JSON.parse(process.env.GLEANER_TEST_SIMULATED_INTERNET ?? '{"hosts":{},"nat":{}}');

function answersFor(hostname, options) {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  const answers = config.hosts[name] ?? (net.isIP(name) ? undefined : config.hosts['*']);
  if (!answers) return undefined;
  const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : Number(options.family ?? 0);
  return answers.map((address) => ({ address, family: net.isIP(address) })).filter((a) => !family || a.family === family);
}

function notFound(hostname) {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
}

const realLookup = dns.lookup;
dns.lookup = function simulatedLookup(hostname, options, callback) {
  const cb = typeof options === 'function' ? options : callback;
  const opts = typeof options === 'number' ? { family: options } : typeof options === 'object' && options !== null ? options : {};
  const answers = answersFor(hostname, opts);
  if (!answers) return realLookup(hostname, opts, cb);
  process.nextTick(() => {
    if (answers.length === 0) cb(notFound(hostname), opts.all ? [] : '');
    else if (opts.all) cb(null, answers);
    else cb(null, answers[0].address, answers[0].family);
  });
};

const realPromisesLookup = dns.promises.lookup;
dns.promises.lookup = async function simulatedPromisesLookup(hostname, options = {}) {
  const opts = typeof options === 'number' ? { family: options } : options;
  const answers = answersFor(hostname, opts);
  if (!answers) return realPromisesLookup(hostname, options);
  if (answers.length === 0) throw notFound(hostname);
  return opts.all ? answers : answers[0];
};

const routed = (address) => config.nat[address] ?? address;

const realConnect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function connect(...args) {
  // net.createConnection passes its normalised [options, callback] array as the first argument.
  const options = Array.isArray(args[0]) ? args[0][0] : args[0];
  if (options && typeof options === 'object') {
    if (typeof options.host === 'string' && net.isIP(options.host)) {
      options.host = routed(options.host);
    } else if (typeof options.lookup === 'function') {
      const guarded = options.lookup;
      options.lookup = (hostname, lookupOptions, cb) =>
        guarded(hostname, lookupOptions, (err, address, family) => {
          if (err) return cb(err, address, family);
          if (Array.isArray(address)) return cb(null, address.map((a) => ({ address: routed(a.address), family: net.isIP(routed(a.address)) })));
          cb(null, routed(address), net.isIP(routed(address)));
        });
    }
  }
  return realConnect.apply(this, args);
};
