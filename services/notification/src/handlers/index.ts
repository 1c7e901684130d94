import { unary, type CallContext, type Logger } from '@switchyard/shared';
import type { NotificationServiceHandlers } from '@switchyard/shared/generated/switchyard/notification/v1/NotificationService';
import { deleteWebhook } from './delete-webhook';
import type { HandlerDeps } from './deps';
import { getSigningSecret } from './get-signing-secret';
import { getUsage } from './get-usage';
import { getWebhook } from './get-webhook';
import { listDeliveries } from './list-deliveries';
import { listWebhooks } from './list-webhooks';
import { putOrganizationPolicy } from './put-organization-policy';
import { registerWebhook } from './register-webhook';
import { replayDelivery } from './replay-delivery';
import { rotateSigningSecret } from './rotate-signing-secret';
import { rotateWebhookSecret } from './rotate-webhook-secret';
import { updateWebhook } from './update-webhook';

type Handler<Req, Res> = (deps: HandlerDeps, request: Req, context: CallContext) => Promise<Res>;

/** The gRPC implementation: each RPC is a transport-free handler bound to the service's deps. */
export function notificationHandlers(
  deps: HandlerDeps,
  logger: Logger,
): NotificationServiceHandlers {
  const bind = <Req, Res>(handler: Handler<Req, Res>) =>
    unary<Req, Res>(logger, (request, context) => handler(deps, request, context));
  return {
    RegisterWebhook: bind(registerWebhook),
    ListWebhooks: bind(listWebhooks),
    GetWebhook: bind(getWebhook),
    UpdateWebhook: bind(updateWebhook),
    DeleteWebhook: bind(deleteWebhook),
    RotateWebhookSecret: bind(rotateWebhookSecret),
    ListDeliveries: bind(listDeliveries),
    ReplayDelivery: bind(replayDelivery),
    GetSigningSecret: bind(getSigningSecret),
    RotateSigningSecret: bind(rotateSigningSecret),
    PutOrganizationPolicy: bind(putOrganizationPolicy),
    GetUsage: bind((d, request, context) => getUsage(d, request, context)),
  };
}

export type { HandlerDeps } from './deps';
