import type { ConstraintsQuery, Institution, InstitutionConstraint } from './upstream.types.js';
import type { UpstreamClientCore } from './upstream-client.core.js';
import type { CallOptions } from './upstream-request.js';

/** The banks the upstream reaches and what each requires of a call: `upstream.institutions`. */
export class UpstreamInstitutionsOperations {
  constructor(private readonly core: UpstreamClientCore) {}

  /** GET /institutions. */
  list(options?: CallOptions) {
    return this.core.call<Institution[]>('getInstitutions', {}, options).then((result) => {
      // Ids the upstream itself listed may label breaker metrics; caller-chosen ones may not.
      if (Array.isArray(result.data)) this.core.rememberInstitutions(result.data.map((i) => i.id));
      return result;
    });
  }

  /**
   * GET /institutions/constraints/data or /payments: what the institutions require of each endpoint
   * (the PSU headers among it). Ids comma-separated, all of the one country.
   */
  getConstraints(kind: 'data' | 'payments', query: ConstraintsQuery, options?: CallOptions) {
    return this.core.call<InstitutionConstraint[]>(
      kind === 'data' ? 'getAccountConstraintsRulesByInstitution' : 'getPaymentConstraintsRulesByInstitution',
      {
        query: {
          institutionIds: query.institutionIds.join(','),
          institutionCountryCode: query.institutionCountryCode,
          paymentType: query.paymentType,
          endpointPath: query.endpointPath,
          endpointMethod: query.endpointMethod,
        },
      },
      options,
    );
  }

  /** GET /institutions/{institutionId} (answers the bare institution). */
  get(institutionId: string, options?: CallOptions) {
    return this.core.call<Institution>('getInstitution', { ids: { institutionId } }, options);
  }
}
