import { status as GrpcStatus } from '@grpc/grpc-js';

/** Error codes of the public error body (contract-decisions.md, "Error body"). */
export type ErrorCode =
  | 'invalid_request'
  | 'unauthorized'
  | 'key_expired'
  | 'forbidden'
  | 'model_not_allowed'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'unsupported'
  | 'rate_limited'
  | 'quota_exceeded'
  | 'budget_exceeded'
  | 'internal'
  | 'upstream_error'
  | 'unavailable'
  | 'timeout';

export interface ErrorDetail {
  field?: string;
  reason: string;
  [extra: string]: unknown;
}

interface CodeSpec {
  http: number;
  grpc: GrpcStatus;
}

const CODES: Record<ErrorCode, CodeSpec> = {
  invalid_request: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  unauthorized: { http: 401, grpc: GrpcStatus.UNAUTHENTICATED },
  key_expired: { http: 401, grpc: GrpcStatus.UNAUTHENTICATED },
  forbidden: { http: 403, grpc: GrpcStatus.PERMISSION_DENIED },
  model_not_allowed: { http: 403, grpc: GrpcStatus.PERMISSION_DENIED },
  not_found: { http: 404, grpc: GrpcStatus.NOT_FOUND },
  conflict: { http: 409, grpc: GrpcStatus.ALREADY_EXISTS },
  payload_too_large: { http: 413, grpc: GrpcStatus.OUT_OF_RANGE },
  unsupported_media_type: { http: 415, grpc: GrpcStatus.INVALID_ARGUMENT },
  unsupported: { http: 422, grpc: GrpcStatus.FAILED_PRECONDITION },
  rate_limited: { http: 429, grpc: GrpcStatus.RESOURCE_EXHAUSTED },
  quota_exceeded: { http: 429, grpc: GrpcStatus.RESOURCE_EXHAUSTED },
  budget_exceeded: { http: 429, grpc: GrpcStatus.RESOURCE_EXHAUSTED },
  internal: { http: 500, grpc: GrpcStatus.INTERNAL },
  upstream_error: { http: 502, grpc: GrpcStatus.UNAVAILABLE },
  unavailable: { http: 503, grpc: GrpcStatus.UNAVAILABLE },
  timeout: { http: 504, grpc: GrpcStatus.DEADLINE_EXCEEDED },
};

/** Fallback when a gRPC error carries no x-error-code trailer (e.g. raised by grpc-js itself). */
const FROM_GRPC: Partial<Record<GrpcStatus, ErrorCode>> = {
  [GrpcStatus.INVALID_ARGUMENT]: 'invalid_request',
  [GrpcStatus.UNAUTHENTICATED]: 'unauthorized',
  [GrpcStatus.PERMISSION_DENIED]: 'forbidden',
  [GrpcStatus.NOT_FOUND]: 'not_found',
  [GrpcStatus.ALREADY_EXISTS]: 'conflict',
  [GrpcStatus.OUT_OF_RANGE]: 'payload_too_large',
  [GrpcStatus.FAILED_PRECONDITION]: 'unsupported',
  [GrpcStatus.RESOURCE_EXHAUSTED]: 'rate_limited',
  [GrpcStatus.UNAVAILABLE]: 'unavailable',
  [GrpcStatus.DEADLINE_EXCEEDED]: 'timeout',
  [GrpcStatus.CANCELLED]: 'unavailable',
};

export function isErrorCode(value: string): value is ErrorCode {
  return Object.prototype.hasOwnProperty.call(CODES, value);
}

export function errorCodeFromGrpc(code: GrpcStatus): ErrorCode {
  return FROM_GRPC[code] ?? 'internal';
}

/**
 * An error meant for the caller: code, message and details travel unchanged from a service,
 * through gRPC, to the gateway's JSON error body. Anything that is not an AppError is "internal".
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[];
  /** Seconds, for 429 and 503 answers. */
  readonly retryAfter?: number;

  constructor(code: ErrorCode, message: string, details: ErrorDetail[] = [], retryAfter?: number) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
    this.retryAfter = retryAfter;
  }

  get httpStatus(): number {
    return CODES[this.code].http;
  }

  get grpcStatus(): GrpcStatus {
    return CODES[this.code].grpc;
  }

  static invalid(message: string, field?: string, reason?: string): AppError {
    return new AppError(
      'invalid_request',
      message,
      field ? [{ field, reason: reason ?? message }] : [],
    );
  }

  static notFound(message: string): AppError {
    return new AppError('not_found', message);
  }

  static unsupported(message: string, details: ErrorDetail[] = []): AppError {
    return new AppError('unsupported', message, details);
  }
}

export function httpStatusOf(code: ErrorCode): number {
  return CODES[code].http;
}
