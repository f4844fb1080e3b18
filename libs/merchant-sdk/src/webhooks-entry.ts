// @open-banking-bff/merchant-sdk/webhooks: verifying deliveries to a merchant's endpoint, on its backend.
export { WebhookVerificationError, type WebhookVerificationCode } from './errors.js';
export type { BffEvent } from './models.js';
export { verifyEvent, type WebhookHeaders } from './webhooks.js';
