import { Metadata, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { AppError, errorCodeFromGrpc, isErrorCode, type ErrorDetail } from '../errors/app-error';

const CODE_KEY = 'x-error-code';
// Binary metadata: details carry user text (field names, CSV headers) in any alphabet, and
// grpc-js refuses non-ASCII in string metadata with a throw.
const DETAILS_KEY = 'x-error-details-bin';
const RETRY_AFTER_KEY = 'x-retry-after';

/** An AppError as a gRPC status whose trailers keep the public code and details intact. */
export function toServiceError(error: AppError): Partial<ServiceError> {
  const metadata = new Metadata();
  metadata.set(CODE_KEY, error.code);
  if (error.details.length > 0)
    metadata.set(DETAILS_KEY, Buffer.from(JSON.stringify(error.details), 'utf8'));
  if (error.retryAfter !== undefined) metadata.set(RETRY_AFTER_KEY, String(error.retryAfter));
  return { code: error.grpcStatus, details: error.message, metadata };
}

function trailer(metadata: Metadata | undefined, key: string): string | undefined {
  const value = metadata?.get(key)[0];
  return typeof value === 'string' ? value : undefined;
}

function parseDetails(metadata: Metadata | undefined): ErrorDetail[] {
  const raw = metadata?.get(DETAILS_KEY)[0];
  if (!Buffer.isBuffer(raw)) return [];
  try {
    const parsed: unknown = JSON.parse(raw.toString('utf8'));
    return Array.isArray(parsed) ? (parsed as ErrorDetail[]) : [];
  } catch {
    return [];
  }
}

/** The caller's view of a failed gRPC call. */
export function fromServiceError(error: ServiceError, service: string): AppError {
  const code = trailer(error.metadata, CODE_KEY);
  if (code && isErrorCode(code)) {
    const retryAfter = trailer(error.metadata, RETRY_AFTER_KEY);
    return new AppError(
      code,
      error.details,
      parseDetails(error.metadata),
      retryAfter ? Number(retryAfter) : undefined,
    );
  }
  const mapped = errorCodeFromGrpc(error.code);
  if (mapped === 'unavailable')
    return new AppError('unavailable', `${service} service is unavailable`);
  if (mapped === 'timeout')
    return new AppError('timeout', `${service} service did not answer in time`);
  if (error.code === GrpcStatus.INTERNAL || mapped === 'internal') {
    return new AppError('internal', 'internal error');
  }
  return new AppError(mapped, error.details);
}
