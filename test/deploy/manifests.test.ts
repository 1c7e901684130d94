import { expect } from 'chai';
import { Topics } from '@switchyard/shared';
import { OVERLAYS, modelModuleOf, named, ofKind, render, type K8sObject } from './render';
import { strimziProblems } from './strimzi-schema';
import { unknownFieldProblems } from './strict-fields';

type Model = { validate(): void };
type ModelClass = new (data: object) => Model;

/** The kubernetes-models (or prometheus-operator models) class of an object's apiVersion/kind. */
async function modelClass(object: K8sObject, module: string): Promise<ModelClass> {
  const loaded = (await import(module)) as Record<string, ModelClass>;
  const Class = loaded[object.kind];
  if (!Class) throw new Error(`${module} has no ${object.kind}`);
  return Class;
}

/** Schema problems of one rendered object ([] when valid). */
async function schemaProblems(object: K8sObject): Promise<string[]> {
  const module = modelModuleOf(object);
  if (!module) return strimziProblems(object);
  try {
    new (await modelClass(object, module))(object).validate();
    return [];
  } catch (error) {
    return [(error as Error).message];
  }
}

function containerOf(deployment: K8sObject) {
  return deployment.spec.template.spec.containers[0];
}

describe('Kubernetes manifests (kustomize build, validated offline)', function () {
  this.timeout(60_000);

  for (const overlay of OVERLAYS) {
    describe(`overlays/${overlay}`, () => {
      let objects: K8sObject[];
      before(() => (objects = render(`overlays/${overlay}`)));

      it('every object validates against the Kubernetes (or Strimzi / Prometheus Operator) schema', async () => {
        expect(objects.length).to.be.greaterThan(30);
        const problems: string[] = [];
        for (const object of objects) {
          for (const problem of await schemaProblems(object))
            problems.push(`${object.kind}/${object.metadata.name}: ${problem}`);
        }
        expect(problems).to.deep.equal([]);
      });

      it('no object has a field its Kubernetes type does not know (typos are not dropped silently)', () => {
        expect(unknownFieldProblems(objects)).to.deep.equal([]);
      });

      it('creates no Secret: apply -k never overwrites the real ones', () => {
        expect(ofKind(objects, 'Secret')).to.deep.equal([]);
      });

      it('every Deployment is hardened, probed, sized and has its own ServiceAccount, PDB and Service', () => {
        const deployments = ofKind(objects, 'Deployment');
        expect(deployments.map((d) => d.metadata.name)).to.have.members([
          'gateway',
          'content',
          'assistant',
          'recommendation',
          'notification',
        ]);
        for (const deployment of deployments) {
          const name = deployment.metadata.name;
          const pod = deployment.spec.template.spec;
          const container = containerOf(deployment);
          expect(pod.securityContext, name).to.include({ runAsNonRoot: true, runAsUser: 1000 });
          expect(container.securityContext, name).to.deep.include({
            readOnlyRootFilesystem: true,
            allowPrivilegeEscalation: false,
            capabilities: { drop: ['ALL'] },
          });
          expect(pod.automountServiceAccountToken, name).to.equal(false);
          for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe'])
            expect(container[probe], `${name} ${probe}`).to.be.an('object');
          if (name !== 'gateway') expect(container.readinessProbe.grpc, name).to.be.an('object');
          expect(container.resources.requests, name).to.have.keys('cpu', 'memory');
          expect(container.resources.limits, name).to.have.key('memory');
          expect(container.image, name).to.match(/^[^:]+\/switchyard:[\w.-]+$/);
          named(objects, 'ServiceAccount', pod.serviceAccountName);
          expect(pod.serviceAccountName).to.equal(name);
          const pdb = named(objects, 'PodDisruptionBudget', name);
          expect(pdb.spec.selector.matchLabels).to.deep.equal(deployment.spec.selector.matchLabels);
          expect(named(objects, 'Service', name).spec.selector).to.deep.equal(
            deployment.spec.selector.matchLabels,
          );
        }
      });

      it('configuration comes from hashed ConfigMaps (a change rolls the pods) that exist', () => {
        for (const deployment of ofKind(objects, 'Deployment')) {
          const container = containerOf(deployment);
          const refs = [
            ...(container.envFrom ?? []).map(
              (source: { configMapRef?: { name: string } }) => source.configMapRef?.name,
            ),
            ...(deployment.spec.template.spec.volumes ?? []).map(
              (volume: { configMap?: { name: string } }) => volume.configMap?.name,
            ),
          ].filter(Boolean);
          expect(refs.length, deployment.metadata.name).to.be.greaterThan(0);
          for (const ref of refs) {
            expect(ref).to.match(/-[a-z0-9]{10}$/);
            named(objects, 'ConfigMap', ref);
          }
        }
      });

      it('network policies deny by default and let the gateway reach each service on its port only', () => {
        const policies = ofKind(objects, 'NetworkPolicy');
        const deny = named(objects, 'NetworkPolicy', 'default-deny');
        expect(deny.spec.policyTypes).to.have.members(['Ingress', 'Egress']);
        expect(deny.spec.ingress ?? []).to.deep.equal([]);
        expect(deny.spec.egress ?? []).to.deep.equal([]);
        for (const [service, port] of [
          ['content', 50051],
          ['assistant', 50052],
          ['recommendation', 50053],
          ['notification', 50054],
        ] as const) {
          const policy = named(objects, 'NetworkPolicy', service);
          const sources = policy.spec.ingress.flatMap(
            (rule: { from: Array<{ podSelector?: { matchLabels: Record<string, string> } }> }) =>
              rule.from.map((peer) => peer.podSelector?.matchLabels['app.kubernetes.io/name']),
          );
          expect(sources, service).to.include('gateway');
          expect(policy.spec.ingress[0].ports, service).to.deep.equal([{ protocol: 'TCP', port }]);
        }
        // Only the gateway is reachable from the ingress controller.
        const fromIngress = policies.filter((p) =>
          JSON.stringify(p.spec.ingress ?? []).includes('ingress-nginx'),
        );
        expect(fromIngress.map((p) => p.metadata.name)).to.deep.equal(['gateway']);
      });

      it('an Ingress exposes the gateway and nothing else', () => {
        const ingresses = ofKind(objects, 'Ingress');
        expect(ingresses).to.have.length(1);
        const backends = ingresses[0].spec.rules.flatMap(
          (rule: { http: { paths: Array<{ backend: { service: { name: string } } }> } }) =>
            rule.http.paths.map((p) => p.backend.service.name),
        );
        expect(backends).to.deep.equal(['gateway']);
      });

      it('Kafka (Strimzi) has every topic the services use, replicated as the overlay says, with TLS + SCRAM', () => {
        const replicas = overlay === 'prod' ? 3 : 1;
        const topics = ofKind(objects, 'KafkaTopic');
        expect(topics.map((t) => t.spec.topicName)).to.have.members(Object.values(Topics));
        for (const topic of topics)
          expect(topic.spec.replicas, topic.metadata.name).to.equal(replicas);
        expect(named(objects, 'KafkaNodePool', 'dual-role').spec.replicas).to.equal(replicas);
        const listener = named(objects, 'Kafka', 'switchyard').spec.kafka.listeners[0];
        expect(listener).to.include({ tls: true, port: 9093 });
        expect(listener.authentication.type).to.equal('scram-sha-512');
      });
    });
  }

  it('prod autoscales every Deployment; dev runs one replica without autoscaling', () => {
    const prod = render('overlays/prod');
    const targets = ofKind(prod, 'HorizontalPodAutoscaler').map((h) => h.spec.scaleTargetRef.name);
    expect(targets).to.have.members(ofKind(prod, 'Deployment').map((d) => d.metadata.name));
    const dev = render('overlays/dev');
    expect(ofKind(dev, 'HorizontalPodAutoscaler')).to.deep.equal([]);
    for (const deployment of ofKind(dev, 'Deployment'))
      expect(deployment.spec.replicas).to.equal(1);
    expect(new Set(dev.map((o) => o.metadata.namespace).filter(Boolean))).to.deep.equal(
      new Set(['switchyard-dev']),
    );
  });

  it('the validation refuses a broken object (it can fail)', async () => {
    const deployment = structuredClone(named(render('overlays/prod'), 'Deployment', 'gateway'));
    deployment.spec.replicas = 'two';
    expect(await schemaProblems(deployment)).to.have.length(1);
    deployment.spec.replicas = 2;
    deployment.spec.template.spec.containers[0].securityContex = { runAsNonRoot: true };
    expect(unknownFieldProblems([deployment]).join()).to.match(/securityContex\W* does not exist/);
    const topic = structuredClone(ofKind(render('overlays/prod'), 'KafkaTopic')[0]);
    topic.spec.replica = 3;
    expect(strimziProblems(topic).join()).to.include('additional properties');
  });
});
