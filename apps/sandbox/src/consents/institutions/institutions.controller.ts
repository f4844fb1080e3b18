import { Controller, Get, Param, Query, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import {
  envelope,
  InstitutionsCatalog,
  PSU_ENDPOINTS,
  type PsuEndpoint,
  SandboxError,
  type SandboxInstitution,
} from '../../core/index.js';
import { PAYMENT_TYPES } from '../../payments/payments.dto.js';

/** The wire names of the PSU headers in a constraints schema, as the upstream's example writes them. */
const SCHEMA_NAMES = {
  'psu-id': 'psuId',
  'psu-corporate-id': 'psuCorporateId',
  'psu-ip-address': 'psuIpAddress',
};

/** The payment types of payment constraints: the upstream's OpenAPI lists every type but bulk. */
const CONSTRAINT_PAYMENT_TYPES: readonly string[] = PAYMENT_TYPES.filter((type) => type !== 'BULK_PAYMENT');

interface ConstraintsQuery {
  institutionIds?: string;
  institutionCountryCode?: string;
  paymentType?: string;
  endpointPath?: string;
  endpointMethod?: string;
}

/** The fixture institutions. The list is an envelope; a single institution is answered bare, as upstream. */
@Controller('institutions')
export class InstitutionsController {
  constructor(private readonly catalog: InstitutionsCatalog) {}

  @Get()
  list(@Req() request: FastifyRequest) {
    return envelope(
      request,
      this.catalog.all().map((i) => InstitutionsCatalog.view(i)),
    );
  }

  /** Institution data constraints (OpenAPI getAccountConstraintsRulesByInstitution): the PSU headers required. */
  @Get('constraints/data')
  dataConstraints(@Req() request: FastifyRequest, @Query() query: ConstraintsQuery) {
    return envelope(request, this.constraints('data', query));
  }

  /** Payment constraints (OpenAPI getPaymentConstraintsRulesByInstitution), for payment authorisations. */
  @Get('constraints/payments')
  paymentConstraints(@Req() request: FastifyRequest, @Query() query: ConstraintsQuery) {
    // Mandatory upstream; the sandbox's PSU rules are the single payment's, so other types ask nothing.
    const paymentType = query.paymentType;
    if (!paymentType || !CONSTRAINT_PAYMENT_TYPES.includes(paymentType)) {
      throw SandboxError.invalidProperty(
        'paymentType',
        `paymentType is required, one of ${CONSTRAINT_PAYMENT_TYPES.join(', ')}`,
      );
    }
    const rules = this.constraints('payments', query).filter(() => paymentType === 'DOMESTIC_PAYMENT');
    return envelope(
      request,
      rules.map((c) => ({ ...c, paymentType })),
    );
  }

  @Get(':institutionId')
  get(@Param('institutionId') id: string) {
    const institution = this.catalog.find(id);
    if (!institution) throw SandboxError.notFound(`Institution ${id} was not found`);
    return InstitutionsCatalog.view(institution);
  }

  /**
   * One rule per institution and endpoint of the kind: the headers it requires there (none for most).
   * Both `institutionIds` (comma-separated) and `institutionCountryCode` are required; an id unknown, or
   * not of that country, is a 404, as the upstream documents.
   */
  private constraints(kind: PsuEndpoint['kind'], query: ConstraintsQuery) {
    if (!query.institutionIds)
      throw SandboxError.invalidProperty('institutionIds', 'institutionIds is required');
    const country = query.institutionCountryCode?.toUpperCase();
    if (!country) {
      throw SandboxError.invalidProperty('institutionCountryCode', 'institutionCountryCode is required');
    }
    const institutions = query.institutionIds.split(',').map((id) => {
      const institution = this.catalog.find(id.trim());
      if (!institution?.countries.some((c) => c.countryCode2 === country)) {
        throw SandboxError.notFound(`Institution ${id} was not found in ${country}`);
      }
      return institution;
    });
    const endpoints = PSU_ENDPOINTS.filter(
      (e) =>
        e.kind === kind &&
        (!query.endpointPath || e.path === query.endpointPath) &&
        (!query.endpointMethod || e.method === query.endpointMethod.toUpperCase()),
    );
    return institutions.flatMap((institution) =>
      endpoints.map((endpoint) => ({
        institutionId: institution.id,
        institutionCountryCode: country,
        endpointPath: endpoint.path,
        endpointMethod: endpoint.method,
        request: { headers: headerSchema(institution), body: bodySchema(institution, endpoint) },
      })),
    );
  }
}

/** An account authorisation's body at a bank that takes a transaction range: `transactionFrom` mandatory. */
function bodySchema(institution: SandboxInstitution, endpoint: PsuEndpoint) {
  if (!institution.requiresTransactionRange || endpoint.kind !== 'data') return { type: 'object' };
  return {
    type: 'object',
    properties: {
      accountRequest: {
        type: 'object',
        required: ['transactionFrom'],
        properties: {
          transactionFrom: {
            type: 'string',
            format: 'date-time',
            description: '__Mandatory__. The earliest transaction the consent may read',
          },
          transactionTo: { type: 'string', format: 'date-time' },
        },
      },
    },
  };
}

function headerSchema(institution: SandboxInstitution) {
  const required = institution.psuHeaders ?? [];
  return {
    title: 'Header',
    type: 'object',
    ...(required.length ? { required: required.map((h) => SCHEMA_NAMES[h]) } : {}),
    properties: Object.fromEntries(
      required.map((h) => [
        SCHEMA_NAMES[h],
        { title: h, type: 'string', description: `__Mandatory__. The ${h} header` },
      ]),
    ),
  };
}
