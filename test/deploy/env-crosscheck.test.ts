import { expect } from 'chai';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { parse as parseYaml } from 'yaml';
import { OVERLAYS, named, ofKind, readText, render, type K8sObject } from './render';
import {
  REQUIRED_IN_CLUSTER,
  SERVICES,
  registryKeyNames,
  startupProblems,
  variablesRead,
  type ServiceName,
} from './service-env';

/** Valid stand-ins for values that live in Secrets (never in the manifests). */
const SECRET_SAMPLES: Record<string, string> = {
  ADMIN_TOKEN: randomBytes(24).toString('base64url'),
  DEV_API_KEY: `sk_${randomBytes(18).toString('base64url')}`,
  DEV_SIGNING_SECRET: `whsec_${randomBytes(24).toString('base64')}`,
  SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  SECRETS_ENCRYPTION_OLD_KEYS: randomBytes(32).toString('base64'),
  MONGODB_URI: 'mongodb://user:password@mongodb:27017/?authSource=admin',
  REDIS_URL: 'redis://:password@redis:6379',
  KAFKA_SASL_PASSWORD: 'generated-by-strimzi',
};

interface ManifestEnv {
  env: NodeJS.ProcessEnv;
  /** Names set from a Secret key that may be missing. */
  optional: Set<string>;
}

/** The environment a Deployment's container gets: its ConfigMaps, literal values and Secret keys. */
function deploymentEnv(objects: K8sObject[], deployment: K8sObject, files: string): ManifestEnv {
  const container = deployment.spec.template.spec.containers[0];
  const env: NodeJS.ProcessEnv = {};
  const optional = new Set<string>();
  for (const source of container.envFrom ?? []) {
    expect(
      source.secretRef,
      `${deployment.metadata.name}: envFrom a Secret hands the pod every key in it`,
    ).to.equal(undefined);
    Object.assign(env, named(objects, 'ConfigMap', source.configMapRef.name).data);
  }
  for (const variable of container.env ?? []) {
    const secretRef = variable.valueFrom?.secretKeyRef;
    if (secretRef) {
      const sample = SECRET_SAMPLES[secretRef.key] ?? SECRET_SAMPLES[variable.name];
      expect(sample, `a sample value for secret key ${secretRef.key} (SECRET_SAMPLES)`).to.be.a(
        'string',
      );
      env[variable.name] = sample;
      if (secretRef.optional) optional.add(variable.name);
    } else {
      env[variable.name] = variable.value;
    }
  }
  // Files the configuration points at must be mounted; the check reads stand-ins for them.
  for (const [name, value] of Object.entries(env)) {
    if (!name.endsWith('_FILE') && !name.endsWith('_PATH')) continue;
    if (!value) continue;
    const mounts: Array<{ mountPath: string }> = container.volumeMounts ?? [];
    expect(
      mounts.some((m) => value.startsWith(`${m.mountPath}/`)),
      `${deployment.metadata.name}: ${name}=${value} is on a mounted volume`,
    ).to.equal(true);
    mkdirSync(path.join(files, deployment.metadata.name), { recursive: true });
    const standIn = path.join(files, deployment.metadata.name, name);
    writeFileSync(
      standIn,
      name === 'MODEL_REGISTRY_PATH' ? modelRegistryOf(objects, deployment) : 'stand-in',
    );
    env[name] = standIn;
  }
  return { env, optional };
}

/** The registry file the content Deployment mounts (from its ConfigMap). */
function modelRegistryOf(objects: K8sObject[], deployment: K8sObject): string {
  const volume = deployment.spec.template.spec.volumes.find(
    (v: { configMap?: object }) => v.configMap,
  );
  return named(objects, 'ConfigMap', volume.configMap.name).data['models.json'];
}

function checkService(
  service: ServiceName,
  manifest: ManifestEnv,
  registryText: string | undefined,
  where: string,
): void {
  const read = variablesRead(service, registryText ? registryKeyNames(registryText) : []);
  const unread = Object.keys(manifest.env).filter((name) => !read.has(name));
  expect(unread, `${where}: variables ${service} never reads`).to.deep.equal([]);
  const missing = REQUIRED_IN_CLUSTER[service].filter(
    (name) => !manifest.env[name] || manifest.optional.has(name),
  );
  expect(missing, `${where}: variables ${service} needs`).to.deep.equal([]);
  const problems = startupProblems(service, manifest.env);
  if (registryText) {
    for (const key of registryKeyNames(registryText))
      if (!manifest.env[key] || manifest.optional.has(key))
        problems.push(`${key} (apiKeyEnv of the model registry) is not set`);
  }
  expect(problems, `${where}: ${service} would refuse to start`).to.deep.equal([]);
}

/** docker-compose values: "${NAME:-default}" stands for its default. */
function composeValue(value: unknown): string {
  return String(value).replace(/\$\{[A-Z0-9_]+:-([^}]*)\}/g, '$1');
}

describe('environment variables: manifests set only what the code reads, and all it needs', function () {
  this.timeout(60_000);
  let files: string;
  before(() => (files = mkdtempSync(path.join(os.tmpdir(), 'switchyard-env-'))));
  after(() => rmSync(files, { recursive: true, force: true }));

  for (const overlay of OVERLAYS) {
    it(`k8s/overlays/${overlay}: every Deployment`, () => {
      const objects = render(`overlays/${overlay}`);
      for (const service of SERVICES) {
        const deployment = named(objects, 'Deployment', service);
        const manifest = deploymentEnv(objects, deployment, files);
        const registry =
          service === 'content'
            ? readFileSync(manifest.env.MODEL_REGISTRY_PATH!, 'utf8')
            : undefined;
        checkService(service, manifest, registry, overlay);
      }
      expect(ofKind(objects, 'Deployment')).to.have.length(SERVICES.length);
    });
  }

  it('deploy/docker-compose.yml: every service, with its example values', () => {
    const compose = parseYaml(readText('deploy/docker-compose.yml'), { merge: true }) as {
      services: Record<string, { environment?: Record<string, unknown> }>;
    };
    for (const service of SERVICES) {
      const environment = compose.services[service]?.environment;
      expect(environment, `compose service ${service}`).to.be.an('object');
      const env = Object.fromEntries(
        Object.entries(environment!).map(([name, value]) => [name, composeValue(value)]),
      );
      checkService(service, { env, optional: new Set() }, undefined, 'docker-compose');
    }
  });

  it('.env.example: every name is read by some service, and its values start every service', () => {
    const env = Object.fromEntries(
      readText('.env.example')
        .split('\n')
        .filter((line) => /^[A-Z][A-Z0-9_]*=/.test(line))
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    const readBySome = new Set(SERVICES.flatMap((service) => [...variablesRead(service)]));
    // Only in .env.example: the model registry's example key, read by content when a registry names it.
    readBySome.add('OPENAI_API_KEY');
    expect(Object.keys(env).filter((name) => !readBySome.has(name))).to.deep.equal([]);
    for (const service of SERVICES)
      expect(startupProblems(service, env), service).to.deep.equal([]);
  });

  it('the image reads SERVICE and sets PROTO_DIR and NODE_ENV (the names counted as read outside the config loaders)', () => {
    const dockerfile = readText('deploy/Dockerfile');
    expect(dockerfile).to.match(/^CMD .*services\/\$\{SERVICE\}\/dist\/src\/index\.js/m);
    expect(dockerfile).to.match(/^ENV NODE_ENV=production PROTO_DIR=\/app\/proto$/m);
  });

  it('the check can fail: an unread variable and a missing required one are reported', () => {
    const objects = render('overlays/prod');
    const deployment = structuredClone(named(objects, 'Deployment', 'notification'));
    const container = deployment.spec.template.spec.containers[0];
    container.env.push({ name: 'WEBHOOK_TIMEOUT', value: '5' });
    container.env = container.env.filter(
      (v: { name: string }) => v.name !== 'SECRETS_ENCRYPTION_KEY',
    );
    const manifest = deploymentEnv(objects, deployment, files);
    expect(() => checkService('notification', manifest, undefined, 'mutated')).to.throw(
      /never reads[\s\S]*WEBHOOK_TIMEOUT/,
    );
    delete manifest.env.WEBHOOK_TIMEOUT;
    expect(() => checkService('notification', manifest, undefined, 'mutated')).to.throw(
      /needs[\s\S]*SECRETS_ENCRYPTION_KEY/,
    );
  });
});
