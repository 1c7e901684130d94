import { describeWebhookControls } from '../suites/webhook-controls';
import { embedded } from '../suites/target';

describeWebhookControls(embedded);
