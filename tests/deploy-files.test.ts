import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import type Joi from 'joi';
import { parse as parseYaml, parseDocument } from 'yaml';
import { startHealthServer, type HealthServer } from '@gleaner/platform';
import { gatewayEnvSchema } from '../services/gateway/src/config.js';
import { scraperWorkerEnvSchema } from '../services/scraper-worker/src/config.js';
import { parserWorkerEnvSchema } from '../services/parser-worker/src/config.js';
import { webhookDispatcherEnvSchema } from '../services/webhook-dispatcher/src/config.js';
import { botConnectorEnvSchema } from '../services/bot-connector/src/config.js';
import { browserWorkerEnvSchema } from '../services/browser-worker/src/config.js';
import { REPO_ROOT } from './support/processes.js';

/**
 * Static checks of the deployment files (there is no Docker engine in CI): docker-compose.yml
 * against the compose-spec essentials and our operator interface, infra/Dockerfile,
 * .dockerignore, infra/redis.conf and infra/prometheus.yml against what the services really
 * read and serve.
 */
const read = (p: string) => readFileSync(path.join(REPO_ROOT, p), 'utf8');
const INTERFACE_MD = readFileSync(path.resolve(REPO_ROOT, '../shared/INTERFACE.md'), 'utf8');
const COMPOSE_TEXT = read('docker-compose.yml');
const DOCKERFILE_TEXT = read('infra/Dockerfile');
const ROOT_PACKAGE = JSON.parse(read('package.json')) as { packageManager: string; dependencies: Record<string, string> };
/** The `start` script of a package.json (the root's, or a service's). */
const startScript = (file: string) => (JSON.parse(read(file)) as { scripts: { start: string } }).scripts.start;

type Dict = Record<string, unknown>;
const isDict = (v: unknown): v is Dict => typeof v === 'object' && v !== null && !Array.isArray(v);

// ---------------------------------------------------------------------------------------------
// The operator interface: service names (INTERFACE.md) and documented variables.

/** "`<service>` one of `gateway`, `scraper-worker`, …" in INTERFACE.md. */
function interfaceServices(): string[] {
  const sentence = /`<service>`\s+one of([\s\S]*?)\./.exec(INTERFACE_MD);
  if (!sentence) throw new Error('INTERFACE.md no longer lists the services');
  return [...sentence[1].matchAll(/`([a-z-]+)`/g)].map((m) => m[1]);
}

/** Variable names of the first Markdown table after `heading`. */
function tableVariables(markdown: string, heading: RegExp): string[] {
  const start = markdown.search(heading);
  if (start < 0) throw new Error(`no section ${heading}`);
  const lines = markdown.slice(start).split('\n').slice(1);
  const first = lines.findIndex((l) => l.startsWith('|'));
  const rows: string[] = [];
  for (const line of lines.slice(first)) {
    if (!line.startsWith('|')) break;
    const cell = /^\|\s*`([A-Z][A-Z0-9_]*)`\s*\|/.exec(line);
    if (cell) rows.push(cell[1]);
  }
  return rows;
}

const SCHEMAS: Record<string, Joi.ObjectSchema> = {
  gateway: gatewayEnvSchema,
  'scraper-worker': scraperWorkerEnvSchema,
  'parser-worker': parserWorkerEnvSchema,
  'webhook-dispatcher': webhookDispatcherEnvSchema,
  'bot-connector': botConnectorEnvSchema,
  'browser-worker': browserWorkerEnvSchema,
};
const schemaKeys = (service: string): string[] => Object.keys((SCHEMAS[service].describe() as { keys: Dict }).keys);

/** INTERFACE.md's fixed services, and those added since (it allows additions). */
const ADDED_SERVICES = ['browser-worker'];
const SERVICES = [...interfaceServices(), ...ADDED_SERVICES];
const WORKERS = SERVICES.filter((s) => s !== 'gateway');

// ---------------------------------------------------------------------------------------------
// Compose: parsing, interpolation (as `docker compose config` does it) and the spec essentials.

/** `$$`, `$NAME`, `${NAME}`, `${NAME:-default}`, `${NAME-default}`, `${NAME:?message}`, `${NAME?message}`, `${NAME:+alt}`, `${NAME+alt}`. */
const TOKEN = /\$(?:\$|\{([^}]*)\}|([A-Za-z_][A-Za-z0-9_]*)|)/g;
const BRACED = /^([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])([\s\S]*))?$/;

class InterpolationError extends Error {}

/** Interpolates one value; throws on invalid syntax and on `?` variables that are missing. */
function interpolate(value: string, env: Record<string, string | undefined>): string {
  return value.replace(TOKEN, (token, braced: string | undefined, bare: string | undefined) => {
    if (token === '$$') return '$';
    if (bare) return env[bare] ?? '';
    if (braced === undefined) throw new InterpolationError(`invalid interpolation: a lone "$" in ${JSON.stringify(value)}`);
    const m = BRACED.exec(braced);
    if (!m) throw new InterpolationError(`invalid interpolation format: \${${braced}}`);
    const [, name, op, arg = ''] = m;
    const v = env[name];
    const unset = v === undefined;
    const emptyOrUnset = unset || v === '';
    switch (op) {
      case undefined:
        return v ?? '';
      case ':-':
        return emptyOrUnset ? arg : v!;
      case '-':
        return unset ? arg : v!;
      case ':?':
      case '?':
        if (op === ':?' ? emptyOrUnset : unset) throw new InterpolationError(`required variable ${name} is missing a value: ${arg}`);
        return v!;
      case ':+':
        return emptyOrUnset ? '' : arg;
      case '+':
        return unset ? '' : arg;
      default:
        throw new InterpolationError(`invalid interpolation operator ${op}`);
    }
  });
}

/** Every string value of a parsed YAML tree (keys are not interpolated by compose). */
function mapStrings(node: unknown, f: (s: string) => string): unknown {
  if (typeof node === 'string') return f(node);
  if (Array.isArray(node)) return node.map((n) => mapStrings(n, f));
  if (isDict(node)) return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, mapStrings(v, f)]));
  return node;
}

function rawStrings(node: unknown, out: string[] = []): string[] {
  mapStrings(node, (s) => (out.push(s), s));
  return out;
}

const composeDocument = parseDocument(COMPOSE_TEXT, { merge: true, uniqueKeys: true });
const RAW_COMPOSE = parseYaml(COMPOSE_TEXT, { merge: true }) as Dict;
const TEST_SECRET = 'a-secret-for-the-static-checks-0123456789';
/** The project as `docker compose config` would print it, with only GLEANER_SECRET set. */
const compose = mapStrings(RAW_COMPOSE, (s) => interpolate(s, { GLEANER_SECRET: TEST_SECRET })) as { services: Record<string, Dict>; volumes?: Dict };
const service = (name: string): Dict => {
  const s = compose.services[name];
  if (!isDict(s)) throw new Error(`compose has no service ${name}`);
  return s;
};

function environmentOf(s: Dict): Record<string, string> {
  const env = s.environment ?? {};
  if (Array.isArray(env)) return Object.fromEntries(env.map((e: string) => [e.split('=')[0], e.split('=').slice(1).join('=')]));
  return Object.fromEntries(Object.entries(env as Dict).map(([k, v]) => [k, String(v ?? '')]));
}

/** `test: [CMD, …]` as one command line. */
const healthcheckCommand = (s: Dict): string => {
  const test = (s.healthcheck as Dict | undefined)?.test;
  return Array.isArray(test) ? test.join(' ') : String(test ?? '');
};

/** Keys of a compose service (compose-spec `service` definition), to catch typos such as `healtcheck`. */
const SERVICE_KEYS = new Set([
  'annotations', 'attach', 'blkio_config', 'build', 'cap_add', 'cap_drop', 'cgroup', 'cgroup_parent', 'command', 'configs', 'container_name', 'cpu_count',
  'cpu_percent', 'cpu_period', 'cpu_quota', 'cpu_rt_period', 'cpu_rt_runtime', 'cpu_shares', 'cpus', 'cpuset', 'credential_spec', 'depends_on', 'deploy',
  'develop', 'device_cgroup_rules', 'devices', 'dns', 'dns_opt', 'dns_search', 'domainname', 'entrypoint', 'env_file', 'environment', 'expose', 'extends',
  'external_links', 'extra_hosts', 'gpus', 'group_add', 'healthcheck', 'hostname', 'image', 'init', 'ipc', 'isolation', 'labels', 'links', 'logging',
  'mac_address', 'mem_limit', 'mem_reservation', 'mem_swappiness', 'memswap_limit', 'network_mode', 'networks', 'oom_kill_disable', 'oom_score_adj', 'pid',
  'pids_limit', 'platform', 'ports', 'post_start', 'pre_stop', 'privileged', 'profiles', 'pull_policy', 'read_only', 'restart', 'runtime', 'scale', 'secrets',
  'security_opt', 'shm_size', 'stdin_open', 'stop_grace_period', 'stop_signal', 'storage_opt', 'sysctls', 'tmpfs', 'tty', 'ulimits', 'user', 'userns_mode',
  'uts', 'volumes', 'volumes_from', 'working_dir',
]);
const TOP_LEVEL_KEYS = new Set(['version', 'name', 'include', 'services', 'networks', 'volumes', 'configs', 'secrets', 'models']);
const DURATION = /^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/;
const DEPENDS_CONDITIONS = new Set(['service_started', 'service_healthy', 'service_completed_successfully']);
const RESTART_POLICIES = /^(no|always|unless-stopped|on-failure(:\d+)?)$/;
const PULL_POLICIES = /^(always|never|missing|if_not_present|build|daily|weekly|every_\S+)$/;

/** Names of a service's depends_on targets, in either syntax. */
const dependencies = (s: Dict): string[] => (Array.isArray(s.depends_on) ? (s.depends_on as string[]) : Object.keys((s.depends_on as Dict | undefined) ?? {}));

/**
 * The service that builds `name`'s image: itself when it has build:, else the nearest one among its
 * (transitive) dependencies building the same image name — compose builds a project's images before
 * it creates any container, and `up <service>` brings its dependencies into the project.
 */
function imageSource(name: string, project: { services: Record<string, Dict> }, seen = new Set<string>()): string | null {
  const s = project.services[name];
  if (!s || seen.has(name)) return null;
  seen.add(name);
  if (s.build !== undefined) return name;
  for (const dependency of dependencies(s)) {
    const d = project.services[dependency];
    if (d && d.image === s.image) {
      const source = imageSource(dependency, project, seen);
      if (source) return source;
    }
  }
  return null;
}

/** Short port syntax `[[ip:]host:]container[/protocol]`, ports or ranges within 1-65535. */
function portProblem(port: unknown): string | null {
  if (typeof port !== 'string') return `port ${JSON.stringify(port)} must be a quoted string (YAML 1.1 reads 80:80 as a number)`;
  const [mapping, protocol, ...rest] = port.split('/');
  if (rest.length || (protocol !== undefined && !['tcp', 'udp', 'sctp'].includes(protocol))) return `bad protocol in ${port}`;
  const parts = mapping.split(':');
  if (parts.length > 3) return `too many parts in ${port}`;
  if (parts.length === 3 && !/^\d{1,3}(\.\d{1,3}){3}$/.test(parts[0])) return `bad host IP in ${port}`;
  for (const p of parts.slice(parts.length === 3 ? 1 : 0)) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(p);
    if (!m || [m[1], m[2]].some((n) => n !== undefined && (Number(n) < 1 || Number(n) > 65535))) return `bad port number "${p}" in ${port}`;
  }
  return null;
}

/** Problems of one service against the compose-spec essentials (an empty list when valid). */
function serviceProblems(name: string, s: Dict, project: { services: Record<string, Dict>; volumes?: Dict }): string[] {
  const problems: string[] = [];
  const add = (p: string) => problems.push(`${name}: ${p}`);
  if (!/^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/.test(name)) add('invalid service name');
  for (const key of Object.keys(s)) if (!SERVICE_KEYS.has(key) && !key.startsWith('x-')) add(`unknown key ${key}`);
  if (!s.image && !s.build) add('neither image nor build');
  if (s.build !== undefined) {
    const build = typeof s.build === 'string' ? { context: s.build } : (s.build as Dict);
    const context = path.join(REPO_ROOT, String(build.context ?? '.'));
    if (!existsSync(context) || !statSync(context).isDirectory()) add(`build context ${String(build.context)} is not a directory`);
    if (!existsSync(path.join(context, String(build.dockerfile ?? 'Dockerfile')))) add(`dockerfile ${String(build.dockerfile)} missing`);
  }
  for (const key of ['command', 'entrypoint']) {
    const v = s[key];
    if (v !== undefined && typeof v !== 'string' && !(Array.isArray(v) && v.every((x) => typeof x === 'string'))) add(`${key} must be a string or a list of strings`);
  }
  if (s.environment !== undefined) {
    if (Array.isArray(s.environment)) {
      for (const e of s.environment) if (typeof e !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*(=|$)/.test(e)) add(`bad environment entry ${JSON.stringify(e)}`);
    } else if (isDict(s.environment)) {
      for (const [k, v] of Object.entries(s.environment)) {
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) add(`bad environment name ${k}`);
        if (v !== null && !['string', 'number', 'boolean'].includes(typeof v)) add(`environment ${k} must be a scalar`);
      }
    } else add('environment must be a map or a list');
  }
  if (s.restart !== undefined && !RESTART_POLICIES.test(String(s.restart))) add(`bad restart policy ${String(s.restart)}`);
  if (s.stop_grace_period !== undefined && !DURATION.test(String(s.stop_grace_period))) add('bad stop_grace_period');
  if (s.init !== undefined && typeof s.init !== 'boolean') add('init must be a boolean');
  if (s.profiles !== undefined && !(Array.isArray(s.profiles) && s.profiles.every((p) => typeof p === 'string'))) add('profiles must be a list of strings');
  if (s.healthcheck !== undefined) {
    const h = s.healthcheck as Dict;
    const test = h.test;
    if (!(typeof test === 'string' || (Array.isArray(test) && ['CMD', 'CMD-SHELL', 'NONE'].includes(test[0] as string)))) add('healthcheck.test must be a string or start with CMD, CMD-SHELL or NONE');
    for (const d of ['interval', 'timeout', 'start_period', 'start_interval']) if (h[d] !== undefined && !DURATION.test(String(h[d]))) add(`bad healthcheck.${d}`);
    if (h.retries !== undefined && !Number.isInteger(h.retries)) add('healthcheck.retries must be an integer');
  }
  if (s.pull_policy !== undefined && !PULL_POLICIES.test(String(s.pull_policy))) add(`bad pull_policy ${String(s.pull_policy)}`);
  if (s.pull_policy === 'never' && s.build === undefined && imageSource(name, project) === null) {
    add(`pull_policy never, but nothing it depends on builds ${String(s.image)}: \`docker compose up ${name}\` fails on a fresh machine`);
  }
  const depends = s.depends_on;
  if (depends !== undefined) {
    const entries: Array<[string, Dict]> = Array.isArray(depends) ? depends.map((d: string) => [d, { condition: 'service_started' }]) : Object.entries(depends as Dict).map(([k, v]) => [k, v as Dict]);
    for (const [target, options] of entries) {
      if (!project.services[target]) add(`depends_on unknown service ${target}`);
      const condition = String(options?.condition ?? 'service_started');
      if (!DEPENDS_CONDITIONS.has(condition)) add(`depends_on ${target}: bad condition ${condition}`);
      if (condition === 'service_healthy' && !project.services[target]?.healthcheck) add(`depends_on ${target} being healthy, which has no healthcheck`);
    }
  }
  for (const port of (s.ports as unknown[] | undefined) ?? []) {
    const problem = portProblem(port);
    if (problem) add(problem);
  }
  for (const volume of (s.volumes as unknown[] | undefined) ?? []) {
    if (typeof volume !== 'string') continue;
    const [source, target, mode, ...rest] = volume.split(':');
    if (rest.length || !target?.startsWith('/') || (mode !== undefined && !/^(ro|rw|z|Z|cached|delegated|consistent)(,(ro|rw|z|Z|nocopy))*$/.test(mode))) add(`bad volume ${volume}`);
    else if (source.startsWith('.') || source.startsWith('/')) {
      if (!existsSync(path.resolve(REPO_ROOT, source))) add(`bind mount source ${source} does not exist`);
    } else if (!project.volumes || !(source in project.volumes)) add(`named volume ${source} is not declared under volumes:`);
  }
  return problems;
}

/** `name:tag` of an image reference, or problems (untagged, latest). */
function imageTagProblem(image: string): string | null {
  const withoutDigest = image.split('@')[0];
  const lastSegment = withoutDigest.split('/').at(-1)!;
  if (!lastSegment.includes(':')) return `${image} has no tag (means latest)`;
  const tag = lastSegment.split(':')[1];
  if (tag === 'latest' || tag === '') return `${image} uses the latest tag`;
  return null;
}

// ---------------------------------------------------------------------------------------------
// Dockerfile: instructions with line continuations joined, ARG defaults applied.

interface Instruction {
  keyword: string;
  args: string;
  stage: number;
}

function parseDockerfile(text: string): Instruction[] {
  const joined = text.replace(/\\\r?\n/g, ' ');
  const out: Instruction[] = [];
  let stage = -1;
  for (const line of joined.split(/\r?\n/)) {
    const trimmed = line.trim();
    if (!trimmed || trimmed.startsWith('#')) continue;
    const m = /^([A-Za-z]+)\s+([\s\S]*)$/.exec(trimmed);
    if (!m) throw new Error(`not a Dockerfile instruction: ${trimmed}`);
    const keyword = m[1].toUpperCase();
    if (keyword === 'FROM') stage++;
    out.push({ keyword, args: m[2].trim(), stage });
  }
  return out;
}

const instructions = parseDockerfile(DOCKERFILE_TEXT);
/** ARG defaults: global ones (before the first FROM) apply to FROM lines, stage ones inside their stage. */
function argDefaults(stage: number): Record<string, string> {
  const defaults: Record<string, string> = {};
  for (const i of instructions) {
    if (i.keyword !== 'ARG' || i.stage !== stage) continue;
    const [name, value] = i.args.split('=');
    if (value !== undefined) defaults[name] = value;
  }
  return defaults;
}
const expandArgs = (s: string, defaults: Record<string, string>) => s.replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (_, n: string) => defaults[n] ?? `\${${n}}`);
const stages = instructions
  .filter((i) => i.keyword === 'FROM')
  .map((i) => {
    const m = /^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(i.args);
    if (!m) throw new Error(`bad FROM ${i.args}`);
    return { index: i.stage, image: expandArgs(m[1], argDefaults(-1)), name: m[2] };
  });
const finalStage = stages.length - 1;
const inStage = (stage: number) => instructions.filter((i) => i.stage === stage);
const runLines = (stage: number) => inStage(stage).filter((i) => i.keyword === 'RUN').map((i) => expandArgs(i.args, argDefaults(stage)));
const jsonForm = (keyword: string): string[] => {
  const last = inStage(finalStage).filter((i) => i.keyword === keyword).at(-1);
  if (!last) return [];
  const value = JSON.parse(last.args) as unknown;
  if (!Array.isArray(value)) throw new Error(`${keyword} must use the exec (JSON) form`);
  return value as string[];
};

/** .dockerignore semantics for the patterns we use: `**` any depth, `*` within a segment, last match wins, `!` re-includes. */
function dockerIgnored(relativePath: string): boolean {
  const rules = read('.dockerignore')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  let ignored = false;
  for (const rule of rules) {
    const negate = rule.startsWith('!');
    const pattern = (negate ? rule.slice(1) : rule).replace(/^\/+|\/+$/g, '');
    const source = pattern
      .split('/')
      .map((seg) => (seg === '**' ? '(?:.*)' : seg.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]')))
      .join('/')
      .replace(/\(\?:\.\*\)\//g, '(?:.*/)?');
    if (new RegExp(`^${source}(?:/.*)?$`).test(relativePath)) ignored = !negate;
  }
  return ignored;
}

// ---------------------------------------------------------------------------------------------
// Production dependencies: every package a runtime source file imports must be a dependency.

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sourceFiles(p);
    return /\.(ts|mts|mjs|js)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

function runtimeImports(code: string): string[] {
  const specifiers = [
    ...code.matchAll(/^\s*import\s+(?!type\b)[^'";]*?\bfrom\s+['"]([^'"]+)['"]/gm),
    ...code.matchAll(/^\s*export\s+(?!type\b)[^'";]*?\bfrom\s+['"]([^'"]+)['"]/gm),
    ...code.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm),
    ...code.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
    ...code.matchAll(/\brequire(?:\.resolve)?\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((m) => m[1]);
  return specifiers.filter((s) => !s.startsWith('.') && !s.startsWith('/') && !s.startsWith('node:') && !builtinModules.includes(s.split('/')[0]));
}
const packageName = (specifier: string) => (specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]);

// =============================================================================================

describe('docker-compose.yml', () => {
  it('is valid YAML without duplicate keys, with the top-level keys of the compose spec', () => {
    expect(composeDocument.errors.map((e) => e.message)).toEqual([]);
    expect(composeDocument.warnings.map((e) => e.message)).toEqual([]);
    for (const key of Object.keys(RAW_COMPOSE)) expect({ key, allowed: TOP_LEVEL_KEYS.has(key) || key.startsWith('x-') }).toEqual({ key, allowed: true });
    expect(isDict(compose.services) && Object.keys(compose.services).length > 0).toBe(true);
  });

  it('every service follows the compose-spec essentials (image or build, depends_on, ports, volumes, healthchecks)', () => {
    const problems = Object.entries(compose.services).flatMap(([name, s]) => serviceProblems(name, s, compose));
    expect(problems).toEqual([]);
  });

  it('the essentials check itself rejects what `docker compose config` rejects', () => {
    const project = { services: { a: { image: 'x:1', healthcheck: { test: ['CMD', 'true'] } } } as Record<string, Dict>, volumes: { data: null } as Dict };
    const bad: Array<[Dict, RegExp]> = [
      [{ command: 'x' }, /neither image nor build/],
      [{ image: 'x:1', healtcheck: {} }, /unknown key healtcheck/],
      [{ image: 'x:1', depends_on: { a: { condition: 'service_ready' } } }, /bad condition/],
      [{ image: 'x:1', depends_on: { nope: { condition: 'service_started' } } }, /unknown service nope/],
      [{ image: 'x:1', ports: [8080] }, /quoted string/],
      [{ image: 'x:1', ports: ['80:99999'] }, /bad port number/],
      [{ image: 'x:1', volumes: ['other:/data'] }, /not declared/],
      [{ image: 'x:1', healthcheck: { test: ['CMD', 'true'], interval: '10 seconds' } }, /bad healthcheck.interval/],
      [{ image: 'x:1', restart: 'sometimes' }, /bad restart policy/],
    ];
    for (const [definition, message] of bad) expect(serviceProblems('b', definition, project).join('\n')).toMatch(message);
    expect(serviceProblems('b', { image: 'x:1', depends_on: { a: { condition: 'service_healthy' } }, ports: ['127.0.0.1:80:8080/tcp'], volumes: ['data:/data'] }, project)).toEqual([]);
  });

  it('uses only valid ${VAR} interpolation, and refuses to start without GLEANER_SECRET, with a message', () => {
    const values = rawStrings(RAW_COMPOSE).filter((s) => s.includes('$'));
    expect(values.length).toBeGreaterThan(0);
    for (const v of values) expect(() => interpolate(v, {})).not.toThrow(/invalid/);
    expect(() => mapStrings(RAW_COMPOSE, (s) => interpolate(s, {}))).toThrow(/required variable GLEANER_SECRET is missing a value: .*\S/);
    expect(() => mapStrings(RAW_COMPOSE, (s) => interpolate(s, { GLEANER_SECRET: '' }))).toThrow(/GLEANER_SECRET/);
    // The interpolation itself: operators and errors behave as compose documents them.
    expect(interpolate('${A:-x}|${A-y}|${B:+z}|$$', { A: '', B: '1' })).toBe('x||z|$');
    expect(() => interpolate('${A B}', {})).toThrow(/invalid interpolation format/);
    expect(() => interpolate('cost $5', {})).toThrow(/lone/);
    for (const name of SERVICES) expect(environmentOf(service(name)).GLEANER_SECRET).toBe(TEST_SECRET);
  });

  it('has Redis and every service named in INTERFACE.md (and each has its own folder)', () => {
    expect(interfaceServices()).toEqual(['gateway', 'scraper-worker', 'parser-worker', 'webhook-dispatcher', 'bot-connector']);
    expect(readdirSync(path.join(REPO_ROOT, 'services')).sort()).toEqual([...SERVICES].sort());
    for (const name of ['redis', ...SERVICES]) expect(Object.keys(compose.services)).toContain(name);
  });

  it('runs every service from one image built with infra/Dockerfile, the command being its start script', () => {
    const entrypoint = jsonForm('ENTRYPOINT');
    const images = new Set<string>();
    for (const name of SERVICES) {
      const s = service(name);
      images.add(String(s.image));
      // `pnpm --filter @gleaner/<name> start` runs `exec node ../../packages/platform/src/run.mjs
      // src/main.ts` in services/<name> (`exec`: the shell becomes node, so the signals pnpm
      // forwards reach the service); the image runs the same files from the workspace root.
      // parser-worker's script first exports the image's allocator settings (see infra/Dockerfile's tests).
      const script = withoutAllocatorDefaults(startScript(`services/${name}/package.json`));
      expect(script).toMatch(/^exec node /);
      const [node, ...files] = script.replace(/^exec\s+/, '').split(/\s+/);
      const expected = [node, ...files.map((file) => path.posix.normalize(`services/${name}/${file}`))];
      expect([...entrypoint, ...(s.command as string[])]).toEqual(expected);
      expect(existsSync(path.join(REPO_ROOT, expected.at(-1)!))).toBe(true);
    }
    expect(images.size).toBe(1);
  });

  it('builds that image once: one service has build:, the others use it by name and never pull it', () => {
    // Compose builds every service that has a build section, even when they name the same image.
    const [image] = SERVICES.map((name) => String(service(name).image));
    const builders = Object.entries(compose.services).filter(([, s]) => s.build !== undefined);
    expect(builders.map(([name]) => name)).toEqual(['gateway']);
    const { args, ...build } = builders[0][1].build as Dict;
    expect(build).toEqual({ context: '.', dockerfile: 'infra/Dockerfile' });
    // Build arguments by name only: from the environment when set there, else the Dockerfile's
    // defaults (the official node image); each is one the Dockerfile declares.
    expect(args).toEqual(['NODE_IMAGE', 'EXTRA_CA_CERTS']);
    const declared = instructions.filter((i) => i.keyword === 'ARG').map((i) => i.args.split('=')[0]);
    for (const arg of args as string[]) expect(declared).toContain(arg);
    for (const name of SERVICES.filter((n) => n !== 'gateway')) {
      const s = service(name);
      expect({ name, build: s.build, image: s.image, pull_policy: s.pull_policy }).toEqual({ name, build: undefined, image, pull_policy: 'never' });
      // `docker compose up <worker>` alone includes its dependencies, so the image gets built first.
      expect(imageSource(name, compose)).toBe('gateway');
    }
    expect(imageSource('gateway', compose)).toBe('gateway');
  });

  it('the build-once check itself rejects a service that never pulls an image nothing it depends on builds', () => {
    const project = {
      services: {
        builder: { image: 'app:1', build: { context: '.' } },
        worker: { image: 'app:1', pull_policy: 'never', depends_on: { builder: { condition: 'service_started' } } },
        orphan: { image: 'app:1', pull_policy: 'never' },
        chained: { image: 'app:1', pull_policy: 'never', depends_on: ['worker'] },
      } as Record<string, Dict>,
    };
    expect(imageSource('worker', project)).toBe('builder');
    expect(imageSource('chained', project)).toBe('builder');
    expect(imageSource('orphan', project)).toBeNull();
    expect(serviceProblems('orphan', project.services.orphan, project).join('\n')).toMatch(/pull_policy never.*nothing it depends on builds app:1/);
    expect(serviceProblems('worker', { ...project.services.worker, pull_policy: 'sometimes' }, project).join('\n')).toMatch(/bad pull_policy/);
    expect(serviceProblems('worker', project.services.worker, project)).toEqual([]);
  });

  it('every Gleaner service reaches the compose Redis and starts once it is healthy', () => {
    for (const name of SERVICES) {
      const s = service(name);
      expect(environmentOf(s).REDIS_URL).toMatch(/^redis:\/\/redis:6379(\/\d+)?$/);
      expect((s.depends_on as Dict).redis).toEqual({ condition: 'service_healthy' });
    }
  });

  it('every environment variable it sets or reads is documented (INTERFACE.md, docs/configuration.md) and read by the service it is set on', () => {
    const documented = new Set([...tableVariables(INTERFACE_MD, /^## Environment/m), ...tableVariables(read('docs/configuration.md'), /^# Configuration/m)]);
    expect(documented.has('REDIS_URL') && documented.has('HEALTH_PORT')).toBe(true);
    const known = new Set([...documented, ...SERVICES.flatMap(schemaKeys)]);
    const interpolated = rawStrings(RAW_COMPOSE).flatMap((v) => [...v.matchAll(TOKEN)].map((m) => (m[1] ?? m[2] ?? '').split(/[:?+-]/)[0]).filter(Boolean));
    const used = new Set([...Object.values(compose.services).flatMap((s) => Object.keys(environmentOf(s))), ...interpolated]);
    expect([...used].filter((name) => !known.has(name))).toEqual([]);
    // A variable set on a service that does not read it does nothing: a silent misconfiguration.
    for (const name of SERVICES) {
      const keys = new Set(schemaKeys(name));
      expect({ service: name, notRead: Object.keys(environmentOf(service(name))).filter((k) => !keys.has(k)) }).toEqual({ service: name, notRead: [] });
    }
  });

  it('has healthchecks: redis answers PONG (not LOADING), gateway and workers answer /readyz on their own port', () => {
    // redis-cli exits 0 on an error reply such as LOADING (a Redis reading its AOF): only PONG is ready.
    expect(healthcheckCommand(service('redis'))).toMatch(/^CMD-SHELL redis-cli( -p \d+)? ping \| grep -q PONG$/);
    expect(healthcheckCommand(service('gateway'))).toContain(`127.0.0.1:${environmentOf(service('gateway')).PORT}/readyz`);
    for (const name of WORKERS) {
      const port = environmentOf(service(name)).HEALTH_PORT;
      expect(Number(port)).toBeGreaterThan(0);
      expect(healthcheckCommand(service(name))).toContain(`127.0.0.1:${port}/readyz`);
    }
  });

  it('workers scale: no container_name and no host ports; the gateway publishes its port', () => {
    for (const name of WORKERS) {
      expect({ name, container_name: service(name).container_name, ports: service(name).ports }).toEqual({ name, container_name: undefined, ports: undefined });
    }
    const gateway = service('gateway');
    expect(gateway.container_name).toBeUndefined();
    expect(gateway.ports).toEqual([`8080:${environmentOf(gateway).PORT}`]);
  });

  it('keeps Redis data on a declared named volume and mounts infra/redis.conf, which turns AOF on and never evicts', () => {
    const redis = service('redis');
    expect(imageTagProblem(String(redis.image))).toBeNull();
    const volumes = redis.volumes as string[];
    const data = volumes.find((v) => v.split(':')[1] === '/data');
    expect(data).toBeDefined();
    expect(Object.keys(compose.volumes ?? {})).toContain(data!.split(':')[0]);
    const conf = volumes.find((v) => v.startsWith('./infra/redis.conf:'))!;
    expect(conf).toBeDefined();
    expect(redis.command).toEqual(['redis-server', conf.split(':')[1]]);
    const directives = Object.fromEntries(
      read('infra/redis.conf')
        .split('\n')
        .filter((l) => l.trim() && !l.trim().startsWith('#'))
        .map((l) => [l.trim().split(/\s+/)[0].toLowerCase(), l.trim().split(/\s+/).slice(1).join(' ')]),
    );
    expect(directives.appendonly).toBe('yes');
    expect(directives['maxmemory-policy']).toBe('noeviction');
  });

  it('hardens every Gleaner container: read-only root but /tmp, no new privileges, no capabilities, a memory limit, rotated JSON logs', () => {
    for (const name of SERVICES) {
      const s = service(name);
      const limit = ((s.deploy as Dict | undefined)?.resources as { limits?: { memory?: string } } | undefined)?.limits?.memory;
      expect({ name, read_only: s.read_only, tmpfs: s.tmpfs, security_opt: s.security_opt, cap_drop: s.cap_drop, limit: /^\d+[MG]$/.test(String(limit)) }).toEqual({
        name,
        read_only: true,
        tmpfs: ['/tmp'],
        security_opt: ['no-new-privileges:true'],
        cap_drop: ['ALL'],
        limit: true,
      });
      expect(s.logging).toEqual({ driver: 'json-file', options: { 'max-size': '10m', 'max-file': '3' } });
    }
    expect(service('redis').security_opt).toEqual(['no-new-privileges:true']);
  });

  it('keeps uploads on one named volume, mounted where the gateway and the parser-worker store them, and the image owns that folder', () => {
    for (const name of ['gateway', 'parser-worker']) {
      const env = environmentOf(service(name));
      expect({ name, store: env.DOCUMENT_STORE, dir: env.DOCUMENT_STORE_DIR }).toEqual({ name, store: 'local', dir: '/var/lib/gleaner/uploads' });
      expect(service(name).volumes).toEqual([`uploads:${env.DOCUMENT_STORE_DIR}`]);
    }
    expect(Object.keys(compose.volumes ?? {})).toContain('uploads');
    expect(runLines(finalStage).join('\n')).toContain('mkdir -p /var/lib/gleaner/uploads && chown node:node /var/lib/gleaner/uploads');
    // MinIO only when asked for: nothing waits on it.
    expect(service('minio').profiles).toEqual(['minio']);
    for (const [name, s] of Object.entries(compose.services)) expect({ name, minio: dependencies(s).includes('minio') }).toEqual({ name, minio: false });
  });

  it('pins every image by a tag that is not latest', () => {
    for (const [name, s] of Object.entries(compose.services)) expect({ name, problem: imageTagProblem(String(s.image)) }).toEqual({ name, problem: null });
    expect(imageTagProblem('redis')).toMatch(/no tag/);
    expect(imageTagProblem('gleaner:latest')).toMatch(/latest/);
  });
});

/** glibc malloc settings the final stage sets (ENV MALLOC_...=value), as name -> value. */
function imageAllocatorEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const i of inStage(finalStage).filter((i) => i.keyword === 'ENV')) {
    const m = /^(MALLOC_\w+)=(\S+)$/.exec(i.args);
    if (m) env[m[1]] = m[2];
  }
  return env;
}

/** A start script's leading `export MALLOC_X=${MALLOC_X:-value} ... && ` as name -> value, and the rest. */
function allocatorDefaults(script: string): { defaults: Record<string, string>; rest: string } {
  const m = /^export((?:\s+MALLOC_\w+=\$\{MALLOC_\w+:-[^}\s]+\})+)\s*&&\s*/.exec(script);
  if (!m) return { defaults: {}, rest: script };
  const defaults: Record<string, string> = {};
  for (const [, name, again, value] of m[1].matchAll(/(MALLOC_\w+)=\$\{(MALLOC_\w+):-([^}]+)\}/g)) {
    // `A=${B:-v}` with another name would read the wrong variable.
    expect(again).toBe(name);
    defaults[name] = value;
  }
  return { defaults, rest: script.slice(m[0].length) };
}
const withoutAllocatorDefaults = (script: string) => allocatorDefaults(script).rest;

describe('infra/Dockerfile', () => {
  it('sets glibc malloc settings that the parser start scripts also give, unless the caller sets them', () => {
    // glibc reads them as the process starts, so a service started with `pnpm start` or `pnpm
    // --filter @gleaner/parser-worker start` gets them from its script, the image from ENV.
    const image = imageAllocatorEnv();
    expect(Object.keys(image).sort()).toEqual(['MALLOC_ARENA_MAX', 'MALLOC_MMAP_THRESHOLD_']);
    for (const file of ['package.json', 'services/parser-worker/package.json']) {
      const { defaults, rest } = allocatorDefaults(startScript(file));
      expect({ file, defaults }).toEqual({ file, defaults: image });
      expect(rest).toMatch(/^exec node /);
    }
  });

  it('is a multi-stage build whose final stage copies from an earlier named stage', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const s of stages) expect(s.name).toMatch(/^[a-z][a-z0-9_-]*$/);
    const copies = inStage(finalStage).filter((i) => i.keyword === 'COPY');
    const from = copies.map((c) => /--from=(\S+)/.exec(c.args)?.[1]).filter(Boolean);
    expect(from.length).toBeGreaterThan(0);
    for (const f of from) expect(stages.slice(0, -1).map((s) => s.name)).toContain(f);
    // The runtime image never installs packages itself: only the build stage does.
    expect(runLines(finalStage).join('\n')).not.toMatch(/pnpm|npm install|npm i /);
  });

  it('uses a slim Node 24 (the active LTS; Node 20 is end of life) Debian bookworm base pinned by its full version tag, never latest', () => {
    for (const s of stages) {
      expect(imageTagProblem(s.image)).toBeNull();
      expect(s.image).toMatch(/^node:24\.\d+\.\d+-bookworm-slim$/);
    }
    expect(DOCKERFILE_TEXT).not.toMatch(/:latest\b|@latest\b/);
  });

  it('trusts EXTRA_CA_CERTS in the build stage only, and only when given', () => {
    const buildArgs = inStage(0).filter((i) => i.keyword === 'ARG').map((i) => i.args);
    expect(buildArgs).toContain('EXTRA_CA_CERTS=""');
    expect(inStage(0).find((i) => i.keyword === 'ENV' && i.args.startsWith('NODE_EXTRA_CA_CERTS='))?.args).toBe('NODE_EXTRA_CA_CERTS=${EXTRA_CA_CERTS:+/etc/gleaner-build-ca.pem}');
    expect(inStage(finalStage).map((i) => i.args).join('\n')).not.toMatch(/EXTRA_CA|gleaner-build-ca/);
  });

  it('installs pnpm 10 with npm, the version package.json names', () => {
    const install = runLines(0).find((r) => /npm (install|i) (-g|--global) pnpm@/.test(r));
    expect(install).toBeDefined();
    const version = /pnpm@(\S+)/.exec(install!)![1];
    expect(version).toMatch(/^10\.\d+\.\d+$/);
    expect(ROOT_PACKAGE.packageManager).toBe(`pnpm@${version}`);
  });

  it('installs from the lockfile only, production dependencies only', () => {
    const installs = stages.slice(0, -1).flatMap((s) => runLines(s.index)).filter((r) => /pnpm (install|i|fetch)\b/.test(r));
    const install = installs.find((r) => /pnpm (install|i)\b/.test(r));
    expect(install).toMatch(/--frozen-lockfile/);
    expect(install).toMatch(/--prod\b/);
    for (const r of installs) expect(r).toMatch(/--prod\b/);
    // ENTRYPOINT's run.mjs bundles with esbuild, a production dependency of @gleaner/platform; the
    // operator CLI runs through tsx (`docker compose exec gateway node --import tsx scripts/gleaner-cli.ts`).
    expect((JSON.parse(read('packages/platform/package.json')) as { dependencies: Record<string, string> }).dependencies.esbuild).toBeDefined();
    expect(ROOT_PACKAGE.dependencies.tsx).toBeDefined();
  });

  it('runs as a non-root user, set before ENTRYPOINT and CMD of the final stage', () => {
    const last = inStage(finalStage);
    const userIndex = last.map((i) => i.keyword).lastIndexOf('USER');
    expect(userIndex).toBeGreaterThanOrEqual(0);
    expect(last[userIndex].args).not.toMatch(/^(root|0)(:|$)/);
    for (const keyword of ['ENTRYPOINT', 'CMD']) {
      const at = last.map((i) => i.keyword).lastIndexOf(keyword);
      expect(at).toBeGreaterThan(userIndex);
    }
    // Nothing after USER switches back to root.
    expect(last.slice(userIndex + 1).filter((i) => i.keyword === 'USER')).toEqual([]);
  });

  it('starts services the way their start scripts do, from the workspace root', () => {
    const workdir = inStage(finalStage).filter((i) => i.keyword === 'WORKDIR').at(-1)?.args;
    expect(workdir).toBe('/app');
    expect(jsonForm('ENTRYPOINT')).toEqual(['node', 'packages/platform/src/run.mjs']);
    const cmd = jsonForm('CMD');
    expect(cmd).toHaveLength(1);
    expect(cmd[0]).toMatch(/^services\/[a-z-]+\/src\/main\.ts$/);
    expect(existsSync(path.join(REPO_ROOT, cmd[0]))).toBe(true);
  });

  it('copies only files that exist and that .dockerignore lets into the build context', () => {
    const sources = instructions
      .filter((i) => i.keyword === 'COPY' && !i.args.includes('--from='))
      .flatMap((i) => i.args.split(/\s+/).filter((a) => !a.startsWith('--')).slice(0, -1));
    expect(sources).toEqual(expect.arrayContaining(['pnpm-lock.yaml', 'package.json', 'packages', 'services']));
    for (const source of sources) {
      expect({ source, exists: existsSync(path.join(REPO_ROOT, source)), ignored: dockerIgnored(source) }).toEqual({ source, exists: true, ignored: false });
    }
  });

  it('builds: the build stage, replayed in a scratch folder (its COPY lines, then its pnpm fetch and install), installs offline', () => {
    // No Docker engine here: copy exactly what the build stage copies, in order, and run its pnpm
    // lines there. A file pnpm needs and the Dockerfile forgets (e.g. a patch of
    // `patchedDependencies`) fails this as it would fail `docker build`.
    const scratch = mkdtempSync(path.join(tmpdir(), 'gleaner-docker-build-'));
    try {
      for (const stage of stages.slice(0, -1)) {
        for (const i of inStage(stage.index)) {
          if (i.keyword === 'COPY' && !i.args.includes('--from=')) {
            const parts = i.args.split(/\s+/).filter((a) => !a.startsWith('--'));
            const dest = parts.at(-1)!;
            for (const source of parts.slice(0, -1)) {
              const target = dest.endsWith('/') ? path.join(scratch, dest, path.basename(source)) : path.join(scratch, dest);
              cpSync(path.join(REPO_ROOT, source), target, { recursive: true, filter: (src) => !dockerIgnored(path.relative(REPO_ROOT, src)) });
            }
          } else if (i.keyword === 'RUN') {
            const run = expandArgs(i.args, argDefaults(stage.index));
            if (!/^pnpm (fetch|install)\b/.test(run)) continue; // installing pnpm itself: this machine has it
            const result = spawnSync('sh', ['-c', run], { cwd: scratch, encoding: 'utf8', env: { ...process.env, CI: '1' } });
            expect({ run, status: result.status, stderr: result.status === 0 ? '' : `${result.stdout}\n${result.stderr}`.slice(-2000) }).toEqual({ run, status: 0, stderr: '' });
          }
        }
      }
      // The operator CLI runs from the production tree (`docker compose exec gateway node packages/platform/src/run.mjs scripts/gleaner-cli.ts …`, or through tsx).
      const cli = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/gleaner-cli.ts', 'help'], { cwd: scratch, encoding: 'utf8' });
      expect({ status: cli.status, usage: cli.stdout.split('\n')[0], stderr: cli.stderr }).toEqual({ status: 0, usage: 'usage: gleaner <command>', stderr: '' });
      // ENTRYPOINT's launcher bundles and runs a program there too (esbuild and its binary are in the tree).
      const launched = spawnSync(process.execPath, ['packages/platform/src/run.mjs', 'scripts/gleaner-cli.ts', 'help'], { cwd: scratch, encoding: 'utf8' });
      expect({ status: launched.status, usage: launched.stdout.split('\n')[0], stderr: launched.stderr }).toEqual({ status: 0, usage: 'usage: gleaner <command>', stderr: '' });
      // The word-extractor patch is applied in the image's tree.
      const filters = readFileSync(path.join(scratch, 'packages/document-extract/node_modules/word-extractor/lib/filters.js'), 'utf8');
      expect(filters).toContain('replaceTable[0x000C] = "\\f"');
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }, 180_000);
});

describe('infra/docker-stack.yml', () => {
  const text = read('infra/docker-stack.yml');
  const document = parseDocument(text, { merge: true, uniqueKeys: true });
  const raw = parseYaml(text, { merge: true }) as Dict;
  const stack = mapStrings(raw, (v) => interpolate(v, {})) as { version: string; services: Record<string, Dict>; volumes: Dict; secrets: Dict; configs: Record<string, { file: string }> };
  const SWARM_UNSUPPORTED = ['build', 'depends_on', 'restart', 'security_opt', 'container_name', 'pull_policy', 'profiles', 'tmpfs'];

  it('is compose format 3 (what docker stack deploy reads) with the compose file\'s Redis and Gleaner services', () => {
    expect(document.errors.map((e) => e.message)).toEqual([]);
    expect(stack.version).toMatch(/^3\.\d+$/);
    expect(Object.keys(stack.services).sort()).toEqual(['redis', ...SERVICES].sort());
    for (const [name, s] of Object.entries(stack.services)) {
      expect({ name, unsupported: SWARM_UNSUPPORTED.filter((k) => k in s) }).toEqual({ name, unsupported: [] });
      expect({ name, endpoint_mode: (s.deploy as Dict).endpoint_mode }).toEqual({ name, endpoint_mode: 'dnsrr' });
    }
    expect(stack.services.gateway.ports).toEqual([{ target: 8080, published: 8080, protocol: 'tcp', mode: 'host' }]);
  });

  it('runs each service as the compose file does: image, command, environment, health check, memory limit, hardening', () => {
    const limit = (s: Dict) => (((s.deploy as Dict).resources as Dict | undefined)?.limits as Dict | undefined)?.memory;
    for (const name of SERVICES) {
      const [mine, theirs] = [stack.services[name], service(name)];
      const env = environmentOf(mine);
      const expected = environmentOf(theirs);
      // The secret comes from a swarm secret file; the store is the node's uploads volume.
      delete expected.GLEANER_SECRET;
      for (const k of Object.keys(expected)) if (k.startsWith('S3_')) delete expected[k];
      expect({ name, image: mine.image, command: mine.command, healthcheck: mine.healthcheck, limit: limit(mine) }).toEqual({ name, image: theirs.image, command: theirs.command, healthcheck: theirs.healthcheck, limit: limit(theirs) });
      const { GLEANER_SECRET_FILE, ...rest } = env;
      expect({ name, env: rest }).toEqual({ name, env: expected });
      const secret = (mine.secrets as Array<{ source: string; target: string; uid: string; mode: number }>)[0];
      expect(GLEANER_SECRET_FILE).toBe(`/run/secrets/${secret.target}`);
      expect({ name, secret: stack.secrets[secret.source], uid: secret.uid, mode: secret.mode }).toEqual({ name, secret: { external: true }, uid: '1000', mode: 0o400 });
      expect({ name, read_only: mine.read_only, cap_drop: mine.cap_drop, init: mine.init, logging: mine.logging, stop: mine.stop_grace_period }).toEqual({
        name, read_only: true, cap_drop: ['ALL'], init: true, logging: theirs.logging, stop: theirs.stop_grace_period,
      });
      expect((mine.volumes as unknown[])[0]).toEqual({ type: 'tmpfs', target: '/tmp' });
    }
    expect(stack.services.redis.healthcheck).toEqual(service('redis').healthcheck);
    expect(stack.services.redis.command).toEqual(service('redis').command);
    expect(stack.services.redis.image).toBe(service('redis').image);
  });

  it('pins Redis and the uploads volume to labelled nodes, and every volume and config it uses exists', () => {
    const constraints = (name: string) => ((stack.services[name].deploy as Dict).placement as { constraints?: string[] }).constraints;
    expect(constraints('redis')).toEqual(['node.labels.gleaner.redis == true']);
    for (const name of ['gateway', 'parser-worker']) {
      expect(constraints(name)).toEqual(['node.labels.gleaner.gateway == true']);
      expect(stack.services[name].volumes).toContain('uploads:/var/lib/gleaner/uploads');
    }
    for (const s of Object.values(stack.services)) {
      for (const v of (s.volumes as unknown[] | undefined) ?? []) if (typeof v === 'string') expect(Object.keys(stack.volumes)).toContain(v.split(':')[0]);
    }
    const conf = (stack.services.redis.configs as Array<{ source: string; target: string }>)[0];
    expect(path.join('infra', stack.configs[conf.source].file)).toBe(path.normalize('infra/redis.conf'));
    expect(conf.target).toBe(String((service('redis').command as string[])[1]));
  });
});

describe('.dockerignore', () => {
  it('keeps secrets, local state and host node_modules out of the build context, sources in', () => {
    for (const p of ['.env', '.env.production', '.gleaner/secret', '.git/HEAD', 'node_modules/tsx/package.json', 'packages/platform/node_modules/joi/package.json', 'services/gateway/node_modules/x']) {
      expect({ p, ignored: dockerIgnored(p) }).toEqual({ p, ignored: true });
    }
    for (const p of ['packages/platform/src/metrics.ts', 'services/gateway/src/main.ts', 'scripts/gleaner-cli.ts', 'pnpm-lock.yaml', '.npmrc']) {
      expect({ p, ignored: dockerIgnored(p) }).toEqual({ p, ignored: false });
    }
  });
});

describe('production dependencies', () => {
  it('every package a runtime source file imports is a production dependency of its workspace package', () => {
    const roots = [
      ...readdirSync(path.join(REPO_ROOT, 'packages')).filter((p) => p !== 'n8n-nodes-gleaner').map((p) => `packages/${p}`),
      ...SERVICES.map((s) => `services/${s}`),
    ];
    const missing: string[] = [];
    for (const root of roots) {
      const manifest = JSON.parse(read(`${root}/package.json`)) as { name: string; dependencies?: Record<string, string> };
      const deps = new Set(Object.keys(manifest.dependencies ?? {}));
      for (const file of sourceFiles(path.join(REPO_ROOT, root, 'src'))) {
        for (const spec of runtimeImports(readFileSync(file, 'utf8'))) {
          if (packageName(spec) !== manifest.name && !deps.has(packageName(spec))) missing.push(`${path.relative(REPO_ROOT, file)} imports ${spec}`);
        }
      }
    }
    const rootDeps = new Set(Object.keys(ROOT_PACKAGE.dependencies));
    for (const file of sourceFiles(path.join(REPO_ROOT, 'scripts'))) {
      for (const spec of runtimeImports(readFileSync(file, 'utf8'))) if (!rootDeps.has(packageName(spec))) missing.push(`${path.relative(REPO_ROOT, file)} imports ${spec}`);
    }
    expect(missing).toEqual([]);
    // The scan sees value imports and skips type-only ones.
    expect(runtimeImports("import { a } from 'joi';\nimport type { B } from 'express';\nexport { c } from '@x/y/z';\nawait import('sharp');")).toEqual(['joi', '@x/y/z', 'sharp']);
  });
});

describe('infra/prometheus.yml', () => {
  const document = parseDocument(read('infra/prometheus.yml'));
  const config = document.toJS() as { scrape_configs: Array<{ job_name: string; metrics_path?: string; dns_sd_configs?: Array<{ names: string[]; type: string; port: number }>; static_configs?: unknown }> };
  let health: HealthServer | null = null;
  afterAll(async () => {
    await health?.close();
  });

  it('parses and has one job per service, discovering every replica through DNS (type A) on its metrics port', () => {
    expect(document.errors).toEqual([]);
    const jobs = config.scrape_configs.map((j) => j.job_name);
    expect(new Set(jobs).size).toBe(jobs.length);
    for (const name of SERVICES) {
      const job = config.scrape_configs.find((j) => j.dns_sd_configs?.some((d) => d.names.includes(name)));
      expect({ name, found: Boolean(job) }).toEqual({ name, found: true });
      const sd = job!.dns_sd_configs!.find((d) => d.names.includes(name))!;
      expect(sd.type).toBe('A');
      expect(job!.static_configs).toBeUndefined();
      // Scraped on the port the service listens on inside the compose network.
      const env = environmentOf(service(name));
      expect(sd.port).toBe(Number(name === 'gateway' ? env.PORT : env.HEALTH_PORT));
    }
    // Every DNS name it scrapes is a compose service, and the compose Prometheus mounts this file.
    for (const job of config.scrape_configs) for (const sd of job.dns_sd_configs ?? []) for (const n of sd.names) expect(Object.keys(compose.services)).toContain(n);
    expect(service('prometheus').volumes).toContain('./infra/prometheus.yml:/etc/prometheus/prometheus.yml:ro');
  });

  it('scrapes the paths the services really serve', async () => {
    const paths = new Map(SERVICES.map((name) => [name, config.scrape_configs.find((j) => j.dns_sd_configs?.some((d) => d.names.includes(name)))!.metrics_path ?? '/metrics']));
    // The gateway's express app declares it next to /readyz (the path its healthcheck asks).
    const gatewayRoutes = [...read('services/gateway/src/app.ts').matchAll(/app\.get\(\s*'([^']+)'/g)].map((m) => m[1]);
    expect(gatewayRoutes).toEqual(expect.arrayContaining([paths.get('gateway'), '/readyz', '/healthz']));
    // Workers serve it from the platform health server (on HEALTH_PORT): ask a real one.
    health = await startHealthServer(0, () => true);
    for (const name of WORKERS) {
      const res = await fetch(`http://127.0.0.1:${health.port}${paths.get(name)}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      const body = await res.text();
      expect(body).toMatch(/^# HELP gleaner_job_duration_seconds /m);
      expect(body).toMatch(/^# HELP gleaner_queue_jobs /m);
    }
    expect((await fetch(`http://127.0.0.1:${health.port}/readyz`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${health.port}/no-such-path`)).status).toBe(404);
  });
});
