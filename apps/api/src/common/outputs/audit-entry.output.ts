import { ApiProperty } from '@nestjs/swagger';
import { AUDIT_ACTIONS, type AuditAction } from '#libs/domain/audit';

export class AuditActorOutput {
  @ApiProperty({ enum: ['operator', 'merchant'] }) kind: 'operator' | 'merchant';
  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: "The merchant's API key that acted",
  })
  apiKeyId: string | null;
}

export class AuditResourceOutput {
  @ApiProperty({ example: 'merchant', description: 'merchant, api-key, event-endpoint, payment, …' })
  type: string;
  @ApiProperty({ type: String, nullable: true, description: 'Null: the action names no single resource' })
  id: string | null;
}

export class AuditEntryOutput {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'date-time' }) occurredAt: string;
  @ApiProperty({ type: AuditActorOutput }) actor: AuditActorOutput;
  @ApiProperty({ enum: AUDIT_ACTIONS }) action: AuditAction;
  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: "The merchant it concerns; null: the operator's own settings",
  })
  merchantId: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The merchant’s name as it is now (the log keeps its id); null with no merchant',
  })
  merchantName: string | null;
  @ApiProperty({ type: AuditResourceOutput }) resource: AuditResourceOutput;
  @ApiProperty({ type: [String], description: 'The fields a change named: their names, never their values' })
  fields: string[];
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      "The address the request came from: its direct peer (behind a proxy, the proxy's). Null in a merchant's view of the operator's entries.",
  })
  sourceIp: string | null;
  @ApiProperty({ description: "The request's tracing id (its meta.tracingId)" })
  tracingId: string;
}
