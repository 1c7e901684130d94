import { callUnary, createClient, protos, type CallContext } from '@switchyard/shared';
import type { NotificationServiceClient } from '@switchyard/shared/generated/switchyard/notification/v1/NotificationService';
import type { RegisterWebhookRequest } from '@switchyard/shared/generated/switchyard/notification/v1/RegisterWebhookRequest';
import type { RegisterWebhookResponse__Output } from '@switchyard/shared/generated/switchyard/notification/v1/RegisterWebhookResponse';
import type { Webhook__Output } from '@switchyard/shared/generated/switchyard/notification/v1/Webhook';
import type { UpdateWebhookRequest } from '@switchyard/shared/generated/switchyard/notification/v1/UpdateWebhookRequest';
import type { RotateSecretResponse__Output } from '@switchyard/shared/generated/switchyard/notification/v1/RotateSecretResponse';
import type { Delivery__Output } from '@switchyard/shared/generated/switchyard/notification/v1/Delivery';
import type { SigningSecret__Output } from '@switchyard/shared/generated/switchyard/notification/v1/SigningSecret';
import type { ListWebhooksResponse__Output } from '@switchyard/shared/generated/switchyard/notification/v1/ListWebhooksResponse';
import type { DeleteWebhookResponse__Output } from '@switchyard/shared/generated/switchyard/notification/v1/DeleteWebhookResponse';
import type { ListDeliveriesResponse__Output } from '@switchyard/shared/generated/switchyard/notification/v1/ListDeliveriesResponse';
import type { OrganizationPolicy, OrganizationPolicy__Output } from '@switchyard/shared/generated/switchyard/notification/v1/OrganizationPolicy';
import type { GetUsageRequest } from '@switchyard/shared/generated/switchyard/notification/v1/GetUsageRequest';
import type { UsageReport__Output } from '@switchyard/shared/generated/switchyard/notification/v1/UsageReport';
import type { ValidateUrlResponse__Output } from '@switchyard/shared/generated/switchyard/notification/v1/ValidateUrlResponse';

export const NOTIFICATION_SERVICE_NAME = 'switchyard.notification.v1.NotificationService';

export class NotificationClient {
  private readonly client: NotificationServiceClient;

  constructor(
    readonly address: string,
    private readonly deadlineMs: number,
  ) {
    this.client = createClient(protos.notification().NotificationService, address);
  }

  private call<Req, Res>(method: Parameters<typeof callUnary<Req, Res>>[1], request: Req, context: CallContext): Promise<Res> {
    return callUnary('notification', method, this.client, request, context, this.deadlineMs);
  }

  registerWebhook(request: RegisterWebhookRequest, context: CallContext): Promise<RegisterWebhookResponse__Output> {
    return this.call(this.client.RegisterWebhook, request, context);
  }

  async listWebhooks(context: CallContext): Promise<Webhook__Output[]> {
    const response: ListWebhooksResponse__Output = await this.call(this.client.ListWebhooks, {}, context);
    return response.webhooks;
  }

  getWebhook(id: string, context: CallContext): Promise<Webhook__Output> {
    return this.call(this.client.GetWebhook, { id }, context);
  }

  updateWebhook(request: UpdateWebhookRequest, context: CallContext): Promise<Webhook__Output> {
    return this.call(this.client.UpdateWebhook, request, context);
  }

  async deleteWebhook(id: string, context: CallContext): Promise<boolean> {
    const response: DeleteWebhookResponse__Output = await this.call(this.client.DeleteWebhook, { id }, context);
    return response.deleted;
  }

  rotateWebhookSecret(id: string, overlapSeconds: number | undefined, context: CallContext): Promise<RotateSecretResponse__Output> {
    return this.call(this.client.RotateWebhookSecret, { id, overlap_seconds: overlapSeconds }, context);
  }

  async listDeliveries(webhookId: string, limit: number, context: CallContext, eventId = ''): Promise<Delivery__Output[]> {
    const response: ListDeliveriesResponse__Output = await this.call(
      this.client.ListDeliveries,
      { webhook_id: webhookId, limit, event_id: eventId },
      context,
    );
    return response.deliveries;
  }

  replayDelivery(webhookId: string, deliveryId: string, context: CallContext): Promise<Delivery__Output> {
    return this.call(this.client.ReplayDelivery, { webhook_id: webhookId, delivery_id: deliveryId }, context);
  }

  getSigningSecret(context: CallContext): Promise<SigningSecret__Output> {
    return this.call(this.client.GetSigningSecret, {}, context);
  }

  rotateSigningSecret(overlapSeconds: number | undefined, context: CallContext): Promise<RotateSecretResponse__Output> {
    return this.call(this.client.RotateSigningSecret, { overlap_seconds: overlapSeconds }, context);
  }

  validateUrl(url: string, context: CallContext): Promise<ValidateUrlResponse__Output> {
    return this.call(this.client.ValidateUrl, { url }, context);
  }

  /** Sets the organization's quota policy (idempotent: the same policy may be put again). */
  putOrganizationPolicy(policy: OrganizationPolicy, context: CallContext): Promise<OrganizationPolicy__Output> {
    return this.call(this.client.PutOrganizationPolicy, policy, context);
  }

  /** The usage ledger of context.organization for one period. */
  getUsage(request: GetUsageRequest, context: CallContext): Promise<UsageReport__Output> {
    return this.call(this.client.GetUsage, request, context);
  }

  close(): void {
    this.client.close();
  }
}
