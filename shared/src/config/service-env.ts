import { str, type ValidatorSpec } from 'envalid';
import { listenPort, readEnv } from './env';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

type Specs<T> = { [K in keyof T]: ValidatorSpec<T[K]> };

/** What every process of the mesh reads: its log level and the shared infrastructure. */
export interface InfraEnv {
  /** pino level (LOG_LEVEL). */
  logLevel: string;
  /** MongoDB connection string (MONGODB_URI); '' keeps state in memory. */
  mongodbUri: string;
  /** This process's own database (MONGODB_DATABASE, default switchyard_<service>). */
  mongodbDatabase: string;
  /** Comma-separated Kafka brokers (KAFKA_BROKERS); '' uses the in-process event bus. */
  kafkaBrokers: string;
}

/** What a gRPC service reads on top: where it serves, and its metrics port. */
export interface ServiceEnv extends InfraEnv {
  grpcHost: string;
  /** 0 picks a free port (embedded mode, tests). */
  grpcPort: number;
  /** Also listen on this Unix socket (GRPC_UNIX_SOCKET; '' TCP only), for callers on the same host. */
  grpcUnixSocket: string;
  /** Prometheus GET /metrics (METRICS_PORT); 0 turns it off. */
  metricsPort: number;
}

interface InfraVariables {
  LOG_LEVEL: string;
  MONGODB_URI: string;
  MONGODB_DATABASE: string;
  KAFKA_BROKERS: string;
}

interface ServiceVariables extends InfraVariables {
  GRPC_HOST: string;
  GRPC_PORT: number;
  GRPC_UNIX_SOCKET: string;
  METRICS_PORT: number;
}

function infraSpecs(database: string): Specs<InfraVariables> {
  return {
    LOG_LEVEL: str({ default: 'info', choices: LOG_LEVELS }),
    MONGODB_URI: str({ default: '' }),
    MONGODB_DATABASE: str({ default: database }),
    KAFKA_BROKERS: str({ default: '' }),
  };
}

function infraEnv(values: InfraVariables): InfraEnv {
  return {
    logLevel: values.LOG_LEVEL,
    mongodbUri: values.MONGODB_URI.trim(),
    mongodbDatabase: values.MONGODB_DATABASE.trim(),
    kafkaBrokers: values.KAFKA_BROKERS.trim(),
  };
}

/**
 * Reads a gRPC service's environment: the variables every service reads (ServiceEnv) and its
 * own (specs), in one pass, so a bad start lists every problem at once.
 */
export function readServiceEnv<T extends object>(
  defaults: { grpcPort: number; database: string; metricsPort?: number },
  specs: Specs<T>,
  env: NodeJS.ProcessEnv = process.env,
): { service: ServiceEnv; values: Readonly<T> } {
  const all = readEnv<ServiceVariables & T>(
    {
      ...infraSpecs(defaults.database),
      GRPC_HOST: str({ default: '0.0.0.0' }),
      GRPC_PORT: listenPort({ default: defaults.grpcPort }),
      GRPC_UNIX_SOCKET: str({ default: '' }),
      METRICS_PORT: listenPort({ default: defaults.metricsPort ?? 9464 }),
      ...specs,
    } as Specs<ServiceVariables & T>,
    env,
  );
  return {
    service: {
      ...infraEnv(all),
      grpcHost: all.GRPC_HOST.trim(),
      grpcPort: all.GRPC_PORT,
      grpcUnixSocket: all.GRPC_UNIX_SOCKET.trim(),
      metricsPort: all.METRICS_PORT,
    },
    values: all,
  };
}

/** readServiceEnv for a process that serves no gRPC (the gateway). */
export function readInfraEnv<T extends object>(
  defaults: { database: string },
  specs: Specs<T>,
  env: NodeJS.ProcessEnv = process.env,
): { infra: InfraEnv; values: Readonly<T> } {
  const all = readEnv<InfraVariables & T>(
    { ...infraSpecs(defaults.database), ...specs } as Specs<InfraVariables & T>,
    env,
  );
  return { infra: infraEnv(all), values: all };
}
