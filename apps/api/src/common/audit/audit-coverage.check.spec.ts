import { Controller, Delete, Get, Post } from '@nestjs/common';
import { type DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { describe, expect, it } from 'vitest';
import { AuditAction } from '#libs/domain/audit';
import { Auth, AuthKind } from '#libs/http';
import { Idempotent } from '../idempotency/idempotent.decorator.js';
import { auditWiringProblems } from './audit-coverage.check.js';
import { Audited } from './audited.decorator.js';

@Auth(AuthKind.Operator)
@Controller('admin/things')
class OperatorThings {
  @Get()
  list() {}

  @Post()
  @Audited(AuditAction.MerchantCreate, { resource: 'thing' })
  create() {}

  @Delete(':id')
  forgotten() {}
}

@Auth(AuthKind.Merchant)
@Controller('v1/things')
class MerchantThings {
  @Post()
  @Audited(AuditAction.ApiKeyIssue, { resource: 'thing' })
  @Idempotent()
  inside() {}

  @Post('other')
  @Idempotent()
  @Audited(AuditAction.ApiKeyIssue, { resource: 'thing' })
  outside() {}

  @Delete(':id')
  notAdministrative() {}
}

const problemsOf = (...types: (new () => object)[]) =>
  auditWiringProblems(
    {
      getControllers: () => types.map((metatype) => ({ metatype, instance: new metatype() })),
    } as unknown as DiscoveryService,
    new MetadataScanner(),
    new Reflector(),
  );

describe('the audit wiring check', () => {
  it('names an operator route that changes something unaudited, and an entry written outside idempotency', () => {
    expect(problemsOf(OperatorThings, MerchantThings)).toEqual([
      'DELETE /admin/things/:id: an operator route that changes something must be @Audited',
      'POST /v1/things/other: put @Audited above @Idempotent, so its entry is written inside it',
    ]);
  });
});
