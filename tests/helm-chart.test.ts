import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { parseAllDocuments } from 'yaml';
import { helm } from './support/helm.js';
import { REPO_ROOT } from './support/processes.js';

/**
 * The Helm chart (deploy/helm/gleaner), checked offline: `helm lint` and `helm template` for
 * several values sets, every rendered object validated against the Kubernetes schemas
 * (kubernetes-models 4.x; KEDA's ScaledObject with @kubernetes-models/keda), and what the chart
 * promises read from what it renders: probes on the health endpoints, graceful termination longer
 * than the shutdown deadline, PodDisruptionBudgets, the secret from a Secret, the Redis settings of
 * each mode, workers without ingress and without the private ranges, one ScaledObject per worker
 * on its backlog. No cluster is needed (none can run on these machines).
 */
const CHART = path.join(REPO_ROOT, 'deploy/helm/gleaner');
const WORKERS = ['scraper-worker', 'parser-worker', 'browser-worker', 'webhook-dispatcher', 'bot-connector'];
const PRIVATE = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '169.254.0.0/16', '127.0.0.0/8'];

type K8sObject = { apiVersion: string; kind: string; metadata: { name: string }; spec?: any; stringData?: Record<string, string> };

const VALUE_SETS: Record<string, string[]> = {
  'defaults (internal Redis)': ['--set', 'secret.gleanerSecret=0123456789abcdef0123456789abcdef'],
  'Sentinel, KEDA': ['--set', 'secret.gleanerSecret=0123456789abcdef0123456789abcdef', '--set', 'redis.mode=sentinel', '--set', 'redis.sentinels=sentinel-0.redis:26379\\,sentinel-1.redis:26379\\,sentinel-2.redis:26379', '--set', 'redis.sentinelMaster=mymaster', '--set', 'redis.password=pw', '--set', 'redis.egress.cidrs={10.20.0.0/16}', '--set', 'keda.enabled=true'],
  'Cluster, existing Secret, KEDA, no NetworkPolicy': ['--set', 'secret.create=false', '--set', 'secret.existingSecret=gleaner-secrets', '--set', 'redis.mode=cluster', '--set', 'redis.clusterNodes=redis-cluster-0.redis:6379\\,redis-cluster-1.redis:6379', '--set', 'keda.enabled=true', '--set', 'networkPolicy.enabled=false'],
  'external URL, S3 keys, metrics from Prometheus': ['--set', 'secret.gleanerSecret=0123456789abcdef0123456789abcdef', '--set', 'redis.mode=url', '--set', 'redis.url=redis://redis.example.internal:6379/2', '--set', 'documentStore.s3.accessKeyId=AK', '--set', 'documentStore.s3.secretAccessKey=SK', '--set', 'documentStore.s3.endpoint=http://minio.storage:9000', '--set-json', 'networkPolicy.workerMetricsFrom=[{"namespaceSelector":{"matchLabels":{"name":"monitoring"}}}]'],
};

async function render(args: string[]): Promise<K8sObject[]> {
  const { stdout } = await helm(['template', 'rel', CHART, '--namespace', 'apps', ...args]);
  return parseAllDocuments(stdout).map((d) => d.toJS()).filter(Boolean) as K8sObject[];
}

/** The kubernetes-models class of an object's apiVersion and kind, validating it against its schema. */
async function validate(o: K8sObject): Promise<void> {
  const [group, version] = o.apiVersion.includes('/') ? o.apiVersion.split('/') : ['', o.apiVersion];
  const module = group === 'keda.sh' ? await import(`@kubernetes-models/keda/keda.sh/${version}`) : await import(group ? `kubernetes-models/${group}/${version}` : `kubernetes-models/${version}`);
  const Model = module[o.kind] as (new (data: unknown) => { validate(): void }) | undefined;
  if (!Model) throw new Error(`no schema for ${o.apiVersion} ${o.kind}`);
  new Model(o).validate();
}

const env = (container: any): Record<string, string> => Object.fromEntries((container.env ?? []).map((e: any) => [e.name, e.value ?? `<secret ${e.valueFrom?.secretKeyRef?.key}>`]));
const byKind = (objects: K8sObject[], kind: string) => objects.filter((o) => o.kind === kind);

describe('the Helm chart', () => {
  it('lints with each values set', async () => {
    for (const args of Object.values(VALUE_SETS)) {
      const { stdout } = await helm(['lint', CHART, ...args]);
      expect(stdout).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
    }
  }, 60_000);

  it.each(Object.entries(VALUE_SETS))('renders valid Kubernetes objects: %s', async (name, args) => {
    const objects = await render(args);
    for (const o of objects) await expect(validate(o).then(() => `${o.kind} ${o.metadata.name} valid`)).resolves.toBe(`${o.kind} ${o.metadata.name} valid`);

    const deployments = byKind(objects, 'Deployment');
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual(['rel-gleaner-gateway', ...WORKERS.map((w) => `rel-gleaner-${w}`)].sort());
    for (const d of deployments) {
      const pod = d.spec.template.spec;
      const [container] = pod.containers;
      const portName = d.metadata.name.endsWith('gateway') ? 'http' : 'health';
      expect({ readiness: container.readinessProbe.httpGet, liveness: container.livenessProbe.httpGet }).toEqual({ readiness: { path: '/readyz', port: portName }, liveness: { path: '/healthz', port: portName } });
      expect(pod.terminationGracePeriodSeconds * 1000).toBeGreaterThan(Number(env(container).SHUTDOWN_DEADLINE_MS));
      expect(container.resources.requests.memory).toBeDefined();
      expect(container.resources.limits.memory).toBeDefined();
      expect(env(container).GLEANER_SECRET).toBe('<secret GLEANER_SECRET>');
      expect(container.env.find((e: any) => e.name === 'GLEANER_SECRET').valueFrom.secretKeyRef.name).toBe(name.includes('existing Secret') ? 'gleaner-secrets' : 'rel-gleaner');
      // The Redis settings of the mode, and only those.
      const redis = Object.fromEntries(Object.entries(env(container)).filter(([k]) => /^REDIS_(URL|SENTINELS|SENTINEL_MASTER|CLUSTER_NODES)$/.test(k)));
      if (name.startsWith('Sentinel')) expect(redis).toEqual({ REDIS_SENTINELS: 'sentinel-0.redis:26379,sentinel-1.redis:26379,sentinel-2.redis:26379', REDIS_SENTINEL_MASTER: 'mymaster' });
      else if (name.startsWith('Cluster')) expect(redis).toEqual({ REDIS_CLUSTER_NODES: 'redis-cluster-0.redis:6379,redis-cluster-1.redis:6379' });
      else if (name.startsWith('external')) expect(redis).toEqual({ REDIS_URL: 'redis://redis.example.internal:6379/2' });
      else expect(redis).toEqual({ REDIS_URL: 'redis://rel-gleaner-redis:6379/0' });
      // Uploads: the gateway and the parser workers share the bucket.
      expect(env(container).DOCUMENT_STORE === 's3').toBe(/gateway|parser-worker/.test(d.metadata.name));
    }
    expect(byKind(objects, 'PodDisruptionBudget')).toHaveLength(6);
    expect(byKind(objects, 'StatefulSet').length).toBe(name.startsWith('defaults') ? 1 : 0);
    expect(byKind(objects, 'Secret').length).toBe(name.includes('existing Secret') ? 0 : 1);

    const scaled = byKind(objects, 'ScaledObject');
    if (name.includes('KEDA')) {
      expect(scaled.map((s) => [s.spec.scaleTargetRef.name, s.spec.triggers[0].metadata.valueLocation, s.spec.triggers[0].metadata.url])).toEqual(
        WORKERS.map((w) => [`rel-gleaner-${w}`, `services.${w}`, 'http://rel-gleaner-gateway.apps.svc:8080/metrics/backlog']).sort((a, b) => a[0].localeCompare(b[0])),
      );
      // KEDA sizes the workers: their Deployments carry no replica count to fight it.
      for (const d of deployments.filter((x) => !x.metadata.name.endsWith('gateway'))) expect(d.spec.replicas).toBeUndefined();
    } else expect(scaled).toHaveLength(0);

    const policies = byKind(objects, 'NetworkPolicy');
    if (name.includes('no NetworkPolicy')) return expect(policies).toHaveLength(0);
    const workers = policies.find((p) => p.metadata.name === 'rel-gleaner-workers')!;
    expect(workers.spec.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(workers.spec.ingress).toEqual(name.includes('Prometheus') ? [{ from: [{ namespaceSelector: { matchLabels: { name: 'monitoring' } } }], ports: [{ port: 9100, protocol: 'TCP' }] }] : []);
    const internet = workers.spec.egress.find((rule: any) => rule.to?.some((t: any) => t.ipBlock?.cidr === '0.0.0.0/0'));
    expect(internet.to[0].ipBlock.except).toEqual(PRIVATE);
    // Every worker fetches, so every worker is under the policy.
    for (const d of deployments.filter((x) => !x.metadata.name.endsWith('gateway'))) expect(d.spec.template.metadata.labels['gleaner.dev/fetches']).toBe('true');
  }, 60_000);

  it('refuses values that would break a deployment, naming the value', async () => {
    const refused = async (args: string[]) => render(args).then(() => 'rendered', (err: { stderr?: string }) => err.stderr ?? String(err));
    expect(await refused(['--set', 'secret.gleanerSecret=0123456789abcdef0123', '--set', 'redis.mode=sentinel'])).toMatch(/redis\.sentinels and redis\.sentinelMaster are required/);
    expect(await refused([])).toMatch(/secret\.gleanerSecret must be 16\+ characters/);
    expect(await refused(['--set', 'secret.gleanerSecret=0123456789abcdef0123', '--set', 'terminationGracePeriodSeconds=10'])).toMatch(/terminationGracePeriodSeconds must be longer than shutdownDeadlineMs/);
    expect(await refused(['--set', 'secret.gleanerSecret=0123456789abcdef0123', '--set', 'redis.mode=memcached'])).toMatch(/redis\.mode must be one of/);
  }, 60_000);
});
