import { readEnv, str } from '../config/env';

/** Where traces go, from OTEL_EXPORTER_OTLP_ENDPOINT; unset means tracing is off. */
export interface TracingSettings {
  /** OTLP/HTTP base URL (e.g. http://otel-collector:4318); spans are POSTed to <endpoint>/v1/traces. */
  otlpEndpoint?: string;
}

/** Reads the tracing variables; throws on a value that is not an http(s) URL (fail fast at boot). */
export function readTracingSettings(env: NodeJS.ProcessEnv = process.env): TracingSettings {
  const e = readEnv<{ OTEL_EXPORTER_OTLP_ENDPOINT: string }>(
    { OTEL_EXPORTER_OTLP_ENDPOINT: str({ default: '' }) },
    env,
  );
  const endpoint = e.OTEL_EXPORTER_OTLP_ENDPOINT.trim();
  if (!endpoint) return {};
  let parsed: URL;
  try {
    parsed = new URL(endpoint);
  } catch {
    throw new Error(
      'invalid configuration:\n  OTEL_EXPORTER_OTLP_ENDPOINT: must be an http(s) URL',
    );
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new Error(
      'invalid configuration:\n  OTEL_EXPORTER_OTLP_ENDPOINT: must be an http(s) URL',
    );
  }
  return { otlpEndpoint: endpoint.replace(/\/+$/, '') };
}
