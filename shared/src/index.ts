// The shared plumbing of every service, by area. Tests' helpers are `@switchyard/shared/testing`,
// the interface's vocabularies `@switchyard/shared/contracts`, generated message types
// `@switchyard/shared/proto/<package>/v1`.

// Errors, ids, configuration, logging, process lifecycle
export * from './errors/app-error';
export * from './ids';
export * from './config/env';
export * from './config/service-env';
export * from './logging/logger';
export * from './process';
export * from './service-process';
export * from './memory/bounded-map';
export * from './resilience/dependencies';

// gRPC: contracts, servers, clients, errors, the in-process transport
export * from './generated/rpc';
export * from './grpc/protos';
export * from './grpc/context';
export * from './grpc/errors';
export * from './grpc/server';
export * from './grpc/server-stream';
export * from './grpc/client';
export * from './grpc/rpc-client';
export * from './grpc/client-metrics';
export * from './grpc/answered-once';
export { useInProcessGrpc, stopUsingInProcessGrpc, inProcessGrpcOn } from './grpc/in-process';

// Events: the envelope, topics, buses (Kafka, in memory), the outbox, publishers
export * from './events/envelope';
export * from './events/schemas';
export * from './events/topics';
export * from './events/bus';
export * from './events/usage-publisher';
export * from './events/webhook-events';
export * from './events/data-updated';
export * from './events/change-feed';
export * from './adapters/in-memory-event-bus';
export * from './adapters/kafka-event-bus';
export * from './adapters/event-bus-factory';
export * from './adapters/kafka-settings';
export * from './adapters/kafka-metrics';
export * from './adapters/handler-retries';
export * from './adapters/outbox';
export * from './adapters/outbox-store';
export * from './adapters/outbox-mongo-store';

// State: MongoDB, Redis, state shared by replicas, kept answers
export * from './adapters/mongo';
export * from './adapters/redis';
export * from './adapters/redis-scripts';
export * from './adapters/shared-state';
export * from './adapters/in-memory-shared-state';
export * from './adapters/redis-shared-state';
export * from './adapters/command-metrics';
export * from './adapters/answer-store';
export * from './adapters/answer-mongo-store';

// Observability: metrics, tracing
export * from './metrics';
export * from './metrics-server';
export * from './tracing/index';

// Tokens, webhook URL policy
export * from './tokens/index';
export * from './webhooks/url-policy';
export * from './webhooks/url-policy-config';
