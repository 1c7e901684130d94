import { expect } from 'chai';
import { num, str } from '../src/config/env';
import { readInfraEnv, readServiceEnv } from '../src/config/service-env';

describe('shared env parsing: what every service reads', () => {
  it('gives each service the common variables with its own defaults, and its own values', () => {
    const { service, values } = readServiceEnv<{ BATCH: number }>(
      { grpcPort: 50099, database: 'switchyard_test', metricsPort: 0 },
      { BATCH: num({ default: 10 }) },
      { MONGODB_URI: ' mongodb://db:27017 ', KAFKA_BROKERS: 'k1:9092,k2:9092 ', BATCH: '7' },
    );
    expect(service).to.deep.equal({
      logLevel: 'info',
      mongodbUri: 'mongodb://db:27017',
      mongodbDatabase: 'switchyard_test',
      kafkaBrokers: 'k1:9092,k2:9092',
      grpcHost: '0.0.0.0',
      grpcPort: 50099,
      grpcUnixSocket: '',
      metricsPort: 0,
    });
    expect(values.BATCH).to.equal(7);
  });

  it('lists every bad variable at once, the common ones and the service’s own', () => {
    const read = () =>
      readServiceEnv<{ NAME: string }>(
        { grpcPort: 1, database: 'd' },
        { NAME: str() },
        { GRPC_PORT: '70000', METRICS_PORT: '-1', LOG_LEVEL: 'loud' },
      );
    expect(read).to.throw(/GRPC_PORT/);
    for (const name of ['METRICS_PORT', 'LOG_LEVEL', 'NAME']) expect(read).to.throw(name);
  });

  it('reads the same common variables for a process that serves no gRPC (the gateway)', () => {
    const { infra } = readInfraEnv(
      { database: 'switchyard_gateway' },
      {},
      { LOG_LEVEL: 'debug', MONGODB_DATABASE: 'gw' },
    );
    expect(infra).to.deep.equal({
      logLevel: 'debug',
      mongodbUri: '',
      mongodbDatabase: 'gw',
      kafkaBrokers: '',
    });
  });
});
