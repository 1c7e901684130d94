import * as path from 'node:path';
import * as fs from 'node:fs';
import { loadPackageDefinition, type GrpcObject } from '@grpc/grpc-js';
import { loadSync, type Options } from '@grpc/proto-loader';
import type { ProtoGrpcType as ContentProto } from '../generated/content';
import type { ProtoGrpcType as AssistantProto } from '../generated/assistant';
import type { ProtoGrpcType as RecommendationProto } from '../generated/recommendation';
import type { ProtoGrpcType as NotificationProto } from '../generated/notification';
import type { ProtoGrpcType as HealthProto } from '../generated/health';

/** Must match the flags of shared/scripts/gen-proto.js so runtime objects fit the generated types. */
export const PROTO_LOADER_OPTIONS: Options = {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
};

/** proto/ at the repository root; PROTO_DIR overrides it where images lay files out differently. */
export function protoDir(): string {
  if (process.env.PROTO_DIR) return process.env.PROTO_DIR;
  let dir = __dirname;
  for (let i = 0; i < 6; i++) {
    const candidate = path.join(dir, 'proto');
    if (fs.existsSync(path.join(candidate, 'switchyard'))) return candidate;
    dir = path.dirname(dir);
  }
  throw new Error('proto/ directory not found; set PROTO_DIR');
}

const cache = new Map<string, GrpcObject>();

function load(file: string): GrpcObject {
  let loaded = cache.get(file);
  if (!loaded) {
    const dir = protoDir();
    const definition = loadSync(path.join(dir, file), {
      ...PROTO_LOADER_OPTIONS,
      includeDirs: [dir],
    });
    loaded = loadPackageDefinition(definition);
    cache.set(file, loaded);
  }
  return loaded;
}

export const protos = {
  content: () =>
    (load('switchyard/content/v1/content.proto') as unknown as ContentProto).switchyard.content.v1,
  assistant: () =>
    (load('switchyard/assistant/v1/assistant.proto') as unknown as AssistantProto).switchyard
      .assistant.v1,
  recommendation: () =>
    (load('switchyard/recommendation/v1/recommendation.proto') as unknown as RecommendationProto)
      .switchyard.recommendation.v1,
  notification: () =>
    (load('switchyard/notification/v1/notification.proto') as unknown as NotificationProto)
      .switchyard.notification.v1,
  health: () => (load('grpc/health/v1/health.proto') as unknown as HealthProto).grpc.health.v1,
};
