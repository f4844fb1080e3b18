import type { AuditAction } from '#libs/domain/audit';

export const AUDITED_METADATA = 'bff:audited';

/** What a route's audit entry reads from the request and its answer. */
export interface AuditedFacts {
  params: Record<string, string>;
  body: unknown;
  /** The handler's answer (the envelope), undefined for a 204. */
  answer: unknown;
}

export interface AuditedOptions {
  /** The kind of thing acted on: merchant, api-key, event-endpoint, … */
  resource: string;
  /** Its id: a route parameter's name, or a function of the facts (an id the answer carries). */
  id?: string | ((facts: AuditedFacts) => string | null | undefined);
  /**
   * The merchant it concerns, for operator routes: a route parameter's name or a function of the facts.
   * A merchant's own routes take the caller's merchant; omitted on operator routes, the action concerns
   * none (the operator's own settings).
   */
  merchant?: string | ((facts: AuditedFacts) => string | null | undefined);
  /** Record which of the body's fields the change named (their names, never their values). */
  fields?: boolean;
}

export interface AuditedSpec extends AuditedOptions {
  action: AuditAction;
}

/** `data.x.y` of an answer. */
export const answered =
  (...path: string[]) =>
  ({ answer }: AuditedFacts): string | undefined => {
    let at: unknown = answer;
    for (const key of ['data', ...path]) at = (at as Record<string, unknown> | undefined)?.[key];
    return typeof at === 'string' ? at : undefined;
  };
