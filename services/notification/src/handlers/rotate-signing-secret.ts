import type { CallContext } from '@switchyard/shared';
import type {
  RotateSecretResponse,
  RotateSigningSecretRequest__Output,
} from '@switchyard/shared/proto/notification/v1';
import { organizationOf, overlapSeconds } from './common';
import type { HandlerDeps } from './deps';

export async function rotateSigningSecret(
  deps: HandlerDeps,
  request: RotateSigningSecretRequest__Output,
  context: CallContext,
): Promise<RotateSecretResponse> {
  const organization = organizationOf(context);
  const rotated = await deps.orgSecrets.rotate(
    organization,
    overlapSeconds(request.overlap_seconds),
  );
  return {
    secret: rotated.secret,
    previous_secret_expires_at: rotated.previousSecretExpiresAt ?? '',
  };
}
