import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { PrismaService } from '#libs/database';
import { DAY_PATTERN, INSTANT_FORMS, INSTANT_PATTERN, parseInstant } from '#libs/time';
import {
  acceptedInstant,
  type ApiClient,
  assertProperty,
  connect,
  type ErrorBody,
  onboard,
  refusedIso8601,
  USER_PRESENT,
  useStack,
} from './kit/index.js';
import { documentedOperations, readOpenApiDocument, type Schema } from './kit/openapi-kit.js';

/**
 * One date rule on every route (issue 37): whatever ISO 8601 text a merchant sends, an accepted value is
 * parsed by that same rule (never a 5xx further in), and a refused one is a 400 naming the field and the
 * accepted forms, the same on the stored and the live lists, statements, consents and the operator's counts.
 */

const anyIso8601 = fc.oneof(acceptedInstant, refusedIso8601);
const DATE_FIELD =
  /^(from|to|before|since|expiresAt|expiringBefore|transactionsFrom|transactionsTo|validFrom|validTo)$/;

describe('api: one rule for dates and times', () => {
  const stack = useStack({
    overrides: { RATE_LIMIT_PER_MINUTE: '1000000' },
  });
  let client: ApiClient;
  let admin: ApiClient;
  let userId: string;
  let accountId: string;

  beforeAll(async () => {
    const tenant = await onboard(stack);
    ({ client, userId } = tenant);
    admin = stack.anonymous.as(stack.api.config.api.adminToken);
    const consentId = await connect(stack, tenant);
    const prisma = stack.api.app.get(PrismaService);
    accountId = (await prisma.account.findFirstOrThrow({ where: { consentId } })).id;
  });

  /** A 400 that names `field` and the accepted forms, or an answer that is not about `field` at all. */
  function expectJudged(field: string, text: string, status: number, body: unknown) {
    const where = `${field}=${text} → ${status} ${JSON.stringify(body).slice(0, 400)}`;
    expect(status, where).toBeLessThan(500);
    const issue = (body as ErrorBody).error?.details?.find((d) => d.field === field);
    if (parseInstant(text)) {
      // Parsed alike: what may still be refused is the value (an expiry in the past), never its form.
      expect(issue?.issue ?? '', where).not.toContain(INSTANT_FORMS);
      if (issue) expect(issue.issue, where).toBe('must be in the future');
    } else {
      expect(status, where).toBe(400);
      expect(issue?.issue, where).toContain(INSTANT_FORMS);
      expect((body as ErrorBody).error.message, where).toContain(field);
    }
  }

  it('refuses an empty or reversed range alike on every list that takes one, stored or live', async () => {
    const lists = [
      `/v1/accounts/${accountId}/transactions`,
      `/v1/accounts/${accountId}/transactions/live`,
      `/v1/accounts/${accountId}/statements`,
      '/v1/events',
    ];
    const instant = fc
      .date({
        min: new Date('2024-01-01T00:00:00Z'),
        max: new Date('2026-12-31T00:00:00Z'),
        noInvalidDate: true,
      })
      .map((d) => d.toISOString());
    await assertProperty(
      fc.asyncProperty(
        fc.constantFrom(...lists),
        instant,
        fc.option(instant, { nil: undefined }),
        async (path, from, other) => {
          const before = other ?? from; // the same instant: an empty range
          const response = await client.get(`${path}?${new URLSearchParams({ from, before }).toString()}`, {
            headers: USER_PRESENT,
          });
          const where = `${path} from=${from} before=${before}`;
          if (Date.parse(before) > Date.parse(from)) {
            expect(response.status, where).toBe(200);
          } else {
            expect(response.status, where).toBe(400);
            expect((response.body as ErrorBody).error.details, where).toEqual([
              { field: 'before', issue: 'before must be after from' },
            ]);
          }
        },
      ),
      60,
    );
  });

  it('judges generated ISO 8601 text the same on every list that takes a range', async () => {
    const lists = [
      `/v1/accounts/${accountId}/transactions`,
      `/v1/accounts/${accountId}/transactions/live`,
      `/v1/accounts/${accountId}/statements`,
    ];
    await assertProperty(
      fc.asyncProperty(
        fc.constantFrom(...lists),
        fc.constantFrom('from', 'before'),
        anyIso8601,
        async (path, field, text) => {
          const response = await client.get(`${path}?${new URLSearchParams({ [field]: text }).toString()}`, {
            headers: USER_PRESENT,
          });
          expectJudged(field, text, response.status, response.body);
          if (parseInstant(text)) expect(response.status, `${path} ${field}=${text}`).toBe(200);
        },
      ),
      120,
    );
  });

  it('judges them the same in a consent request and in the operator’s counts', async () => {
    await assertProperty(
      fc.asyncProperty(
        fc.constantFrom('expiresAt', 'transactionsFrom', 'transactionsTo'),
        anyIso8601,
        async (field, text) => {
          const response = await client.post(`/v1/users/${userId}/consents`, {
            institutionId: 'sandbox-redirect',
            redirectUrl: 'https://app.merchant.example/banks/done',
            [field]: text,
          });
          expectJudged(field, text, response.status, response.body);
        },
      ),
      60,
    );
    await assertProperty(
      fc.asyncProperty(anyIso8601, async (text) => {
        const response = await admin.get(
          `/admin/consents?${new URLSearchParams({ expiringBefore: text }).toString()}`,
        );
        expectJudged('expiringBefore', text, response.status, response.body);
        if (parseInstant(text)) expect(response.status, text).toBe(200);
      }),
      40,
    );
  });

  it('documents every date field with the one rule', async () => {
    const document = await readOpenApiDocument(stack.api.url);
    const components = document.components?.schemas ?? {};
    const found: string[] = [];
    const visit = (where: string, name: string, schema: Schema | undefined, depth = 0): void => {
      if (!schema || depth > 8) return;
      const ref = typeof schema.$ref === 'string' ? components[schema.$ref.split('/').pop()!] : undefined;
      if (ref) return visit(where, name, ref, depth + 1);
      for (const part of (schema.allOf as Schema[] | undefined) ?? []) visit(where, name, part, depth + 1);
      for (const [inner, child] of Object.entries((schema.properties as Record<string, Schema>) ?? {}))
        visit(where, inner, child, depth + 1);
      if (schema.type !== 'string' || !DATE_FIELD.test(name)) return;
      found.push(`${where} ${name}`);
      // A range of whole days (format date) has the day's one rule; every other date field the instant's.
      expect(schema.pattern, `${where} ${name}`).toBe(
        schema.format === 'date' ? DAY_PATTERN : INSTANT_PATTERN,
      );
    };
    for (const operation of documentedOperations(document)) {
      for (const parameter of operation.operation.parameters ?? [])
        visit(operation.key, parameter.name, parameter.schema);
      visit(operation.key, '', operation.operation.requestBody?.content?.['application/json']?.schema);
    }
    expect(found.length, found.join('\n')).toBeGreaterThanOrEqual(14);
  });
});
