import Ajv, { type ValidateFunction } from 'ajv';

/*
 * No package in the registries this project uses ships Strimzi's CRD schemas, so the fields the
 * infra component uses are checked against this subset of kafka.strimzi.io/v1beta2 (names,
 * types, enums as Strimzi documents them). Unknown fields are refused, so a typo fails here
 * instead of being dropped by the API server.
 */
const metadata = { type: 'object', required: ['name'] };
const quantity = { type: ['string', 'number'] };
const resources = {
  type: 'object',
  additionalProperties: false,
  properties: {
    requests: { type: 'object', additionalProperties: quantity },
    limits: { type: 'object', additionalProperties: quantity },
  },
};
const strict = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: 'object',
  additionalProperties: false,
  required,
  properties,
});
const resource = (kind: string, spec: object) =>
  strict(
    { apiVersion: { const: 'kafka.strimzi.io/v1beta2' }, kind: { const: kind }, metadata, spec },
    ['apiVersion', 'kind', 'metadata', 'spec'],
  );

const volume = strict(
  {
    id: { type: 'integer', minimum: 0 },
    type: { enum: ['ephemeral', 'persistent-claim'] },
    size: { type: 'string' },
    sizeLimit: { type: 'string' },
    class: { type: 'string' },
    deleteClaim: { type: 'boolean' },
    kraftMetadata: { enum: ['shared'] },
  },
  ['type'],
);
const storage = {
  oneOf: [
    strict({ type: { const: 'jbod' }, volumes: { type: 'array', minItems: 1, items: volume } }, [
      'type',
      'volumes',
    ]),
    strict({ type: { const: 'ephemeral' }, sizeLimit: { type: 'string' } }, ['type']),
    strict(
      {
        type: { const: 'persistent-claim' },
        size: { type: 'string' },
        class: { type: 'string' },
        deleteClaim: { type: 'boolean' },
      },
      ['type', 'size'],
    ),
  ],
};
const listener = strict(
  {
    name: { type: 'string', pattern: '^[a-z0-9]{1,11}$' },
    port: { type: 'integer', minimum: 9092 },
    type: { enum: ['internal', 'route', 'loadbalancer', 'nodeport', 'ingress', 'cluster-ip'] },
    tls: { type: 'boolean' },
    authentication: strict({ type: { enum: ['tls', 'scram-sha-512', 'oauth', 'custom'] } }, [
      'type',
    ]),
    networkPolicyPeers: { type: 'array', items: { type: 'object' } },
  },
  ['name', 'port', 'type', 'tls'],
);
const configValue = { type: ['string', 'number', 'boolean'] };

const schemas: Record<string, object> = {
  KafkaNodePool: resource(
    'KafkaNodePool',
    strict(
      {
        replicas: { type: 'integer', minimum: 0 },
        roles: { type: 'array', minItems: 1, items: { enum: ['controller', 'broker'] } },
        storage,
        resources,
      },
      ['replicas', 'roles', 'storage'],
    ),
  ),
  Kafka: resource(
    'Kafka',
    strict(
      {
        kafka: strict(
          {
            version: { type: 'string' },
            metadataVersion: { type: 'string' },
            listeners: { type: 'array', minItems: 1, items: listener },
            config: { type: 'object', additionalProperties: configValue },
          },
          ['listeners'],
        ),
        entityOperator: strict({
          topicOperator: { type: 'object' },
          userOperator: { type: 'object' },
        }),
      },
      ['kafka'],
    ),
  ),
  KafkaTopic: resource(
    'KafkaTopic',
    strict({
      topicName: { type: 'string' },
      partitions: { type: 'integer', minimum: 1 },
      replicas: { type: 'integer', minimum: 1, maximum: 32767 },
      config: { type: 'object', additionalProperties: configValue },
    }),
  ),
  KafkaUser: resource(
    'KafkaUser',
    strict({
      authentication: strict({ type: { enum: ['tls', 'tls-external', 'scram-sha-512'] } }, [
        'type',
      ]),
      authorization: { type: 'object' },
    }),
  ),
};

const ajv = new Ajv({ allErrors: true, allowUnionTypes: true });
const compiled = new Map<string, ValidateFunction>();

/** Problems of one kafka.strimzi.io object ([] when valid). */
export function strimziProblems(object: {
  kind: string;
  metadata?: { labels?: Record<string, string> };
}): string[] {
  const schema = schemas[object.kind];
  if (!schema) return [`unknown Strimzi kind ${object.kind}`];
  let validate = compiled.get(object.kind);
  if (!validate) compiled.set(object.kind, (validate = ajv.compile(schema)));
  const problems = validate(object)
    ? []
    : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  if (object.kind !== 'Kafka' && !object.metadata?.labels?.['strimzi.io/cluster'])
    problems.push('missing label strimzi.io/cluster');
  return problems;
}
