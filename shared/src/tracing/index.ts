export * from './settings';
export * from './tracing';
export * from './propagation';
export * from './messaging';
export * from './grpc';
