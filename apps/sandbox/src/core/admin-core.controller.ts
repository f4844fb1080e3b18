import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { ConsentsStore } from './consents.store.js';
import { FaultsService } from './faults.service.js';
import { InstitutionsCatalog } from './institutions.catalog.js';
import { ResetRegistryService } from './reset-registry.service.js';
import { SandboxAccess } from './sandbox-auth.guard.js';
import { SandboxClockService } from './sandbox-clock.service.js';
import { SandboxError } from './sandbox-error.js';
import { OptionalNested } from './sandbox-validation.js';

class AdvanceClockDto {
  @IsOptional() @IsInt() @Min(0) @Max(3650) days?: number;
  @IsOptional() @IsInt() @Min(0) @Max(10_000_000) seconds?: number;
}

class FaultHeaderDto {
  @IsString() @Matches(/^[a-z0-9-]{1,100}$/) name: string;
  @IsOptional() @IsString() @MaxLength(500) value?: string;
}

class FaultRuleDto {
  @IsOptional() @IsIn(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) method?: string;
  @IsString() @MaxLength(500) path: string;
  @IsOptional() @IsString() @MaxLength(100) institution?: string;
  @OptionalNested(() => FaultHeaderDto) header?: FaultHeaderDto;
  @IsOptional() @IsInt() @Min(400) @Max(599) status?: number;
  @IsOptional() @IsIn(['YAPILY', 'INSTITUTION']) source?: 'YAPILY' | 'INSTITUTION';
  @IsOptional() @IsInt() @Min(0) @Max(86_400) retryAfterSeconds?: number;
  @IsOptional() @IsInt() @Min(0) @Max(120_000) latencyMs?: number;
  @IsOptional() @IsBoolean() drop?: boolean;
  @IsOptional() @Type(() => Number) @IsNumber() @Min(0.000001) @Max(1) rate?: number;
  @IsOptional() @IsInt() @Min(1) count?: number;
  @IsOptional() @IsInt() @Min(0) after?: number;
}

class InstitutionQuirksDto {
  @IsOptional() @IsBoolean() accountIdsPerConsent?: boolean;
  @IsOptional() @IsBoolean() reauthorisationKeepsExpiry?: boolean;
  /** Null lifts the allowance; omitted leaves it as it is. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1000)
  unattendedReadsPerDay?: number | null;
}

/** The control API's core: reset, clock, faults, and bank-side consent changes. */
@SandboxAccess('admin')
@Controller('sandbox/admin')
export class AdminCoreController {
  constructor(
    private readonly resets: ResetRegistryService,
    private readonly clock: SandboxClockService,
    private readonly faults: FaultsService,
    private readonly consents: ConsentsStore,
    private readonly institutions: InstitutionsCatalog,
  ) {}

  @Post('reset')
  @HttpCode(200)
  reset() {
    this.resets.resetAll();
    return { data: { reset: true, now: this.clock.now().toISOString() } };
  }

  @Get('clock')
  getClock() {
    return { data: { now: this.clock.now().toISOString(), offsetMs: this.clock.offset } };
  }

  @Post('clock/advance')
  @HttpCode(200)
  advance(@Body() body: AdvanceClockDto) {
    const ms = ((body.days ?? 0) * 86_400 + (body.seconds ?? 0)) * 1000;
    if (ms === 0) throw SandboxError.invalidProperty('days', 'Give days and/or seconds greater than zero');
    this.clock.advance(ms);
    return this.getClock();
  }

  @Get('faults')
  listFaults() {
    return { data: this.faults.list() };
  }

  @Post('faults')
  addFault(@Body() body: FaultRuleDto) {
    // A rule narrowed to a header may only count (its `matched`): how a test sees what was sent.
    if (!body.status && !body.latencyMs && !body.drop && !body.header) {
      throw SandboxError.invalidProperty('status', 'A fault needs a status, a latencyMs, drop or a header');
    }
    return { data: this.faults.add(body) };
  }

  @Delete('faults')
  @HttpCode(204)
  clearFaults(): void {
    this.faults.clear();
  }

  @Delete('faults/:id')
  @HttpCode(204)
  removeFault(@Param('id') id: string): void {
    if (!this.faults.remove(id)) throw SandboxError.notFound(`Fault ${id} was not found`);
  }

  /** How an institution differs from the common case (InstitutionQuirks), until a reset or restart. */
  @Put('institutions/:institutionId/quirks')
  @HttpCode(200)
  setQuirks(@Param('institutionId') institutionId: string, @Body() body: InstitutionQuirksDto) {
    this.knownInstitution(institutionId);
    return { data: { institutionId, ...this.institutions.setQuirks(institutionId, body) } };
  }

  @Get('institutions/:institutionId/quirks')
  getQuirks(@Param('institutionId') institutionId: string) {
    this.knownInstitution(institutionId);
    return { data: { institutionId, ...this.institutions.quirksOf(institutionId) } };
  }

  /** The bank expires the consent: the next data call with its token fails as expired. */
  @Post('consents/:consentId/expire')
  @HttpCode(200)
  expire(@Param('consentId') id: string) {
    return { data: this.bankSideStatus(id, 'EXPIRED') };
  }

  /** The bank (or the PSU at the bank) revokes the consent. */
  @Post('consents/:consentId/revoke')
  @HttpCode(200)
  revoke(@Param('consentId') id: string) {
    return { data: this.bankSideStatus(id, 'REVOKED') };
  }

  private knownInstitution(id: string): void {
    if (!this.institutions.find(id)) throw SandboxError.notFound(`Institution ${id} was not found`);
  }

  private bankSideStatus(id: string, status: 'EXPIRED' | 'REVOKED') {
    const record = this.consents.findAny(id);
    if (!record) throw SandboxError.notFound(`Consent ${id} was not found`);
    record.status = status;
    if (status === 'EXPIRED') record.expiresAt = this.clock.now().toISOString();
    this.consents.update(record);
    return { id: record.id, status: record.status };
  }
}
