/**
 * Every administrative action the audit log records: the operator's, and a merchant's on its own
 * integration (its keys, browser origins and webhook endpoints). A closed list: the api refuses to start
 * with an operator route that changes something and names none of these (audit-coverage.check.ts).
 */
export const AuditAction = {
  MerchantCreate: 'merchant.create',
  MerchantUpdate: 'merchant.update',
  MerchantDisable: 'merchant.disable',
  MerchantEnable: 'merchant.enable',
  ApiKeyIssue: 'api-key.issue',
  ApiKeyRevoke: 'api-key.revoke',
  EventEndpointCreate: 'event-endpoint.create',
  EventEndpointUpdate: 'event-endpoint.update',
  EventEndpointDelete: 'event-endpoint.delete',
  EventEndpointRotateSecret: 'event-endpoint.rotate-secret',
  EventEndpointEnable: 'event-endpoint.enable',
  EventDeliveryRetry: 'event-delivery.retry',
  EventEndpointRecover: 'event-endpoint.recover',
  PaymentSettle: 'payment.settle',
  InstitutionsRefresh: 'institutions.refresh',
  InstitutionAllowanceSet: 'institution.allowance-set',
  UpstreamWebhookRegister: 'upstream-webhook.register',
  UpstreamWebhookRotateSecret: 'upstream-webhook.rotate-secret',
  UpstreamWebhookMigrate: 'upstream-webhook.migrate',
} as const;
export type AuditAction = (typeof AuditAction)[keyof typeof AuditAction];

export const AUDIT_ACTIONS: readonly AuditAction[] = Object.values(AuditAction);

/** Who acted: the operator (ADMIN_TOKEN), or a merchant through one of its API keys. */
export type AuditActor = { kind: 'operator' } | { kind: 'merchant'; merchantId: string; apiKeyId: string };

/** One action as it is recorded. Ids and field names only: never a secret, never a value that was set. */
export interface NewAuditEntry {
  actor: AuditActor;
  action: AuditAction;
  /** The merchant the action concerns (null: the operator's own settings, e.g. the upstream receiver). */
  merchantId: string | null;
  resourceType: string;
  resourceId: string | null;
  /** The fields a change named, when the action changes some (names only). */
  fields: string[];
  /** Null in a merchant's view of the operator's entries. */
  sourceIp: string | null;
  tracingId: string;
}

export interface AuditEntryView {
  id: string;
  occurredAt: string;
  actor: { kind: 'operator' | 'merchant'; apiKeyId: string | null };
  action: AuditAction;
  merchantId: string | null;
  /** The merchant's name now (null with no merchant): what a person reading the log knows it by. */
  merchantName: string | null;
  resource: { type: string; id: string | null };
  fields: string[];
  /** Null in a merchant's view of the operator's entries. */
  sourceIp: string | null;
  tracingId: string;
}
