import {
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateBy,
  type ValidationOptions,
} from 'class-validator';
import { OptionalNested, RequiredNested } from '../core/index.js';
import { NOTIFICATION_EVENT_TYPES, WEBHOOK_CATEGORIES } from './webhook-categories.catalog.js';

/** An absolute http(s) URL; a webhook callback must also carry no query (the upstream refuses one). */
export function isDeliveryUrl(value: unknown, allowQuery: boolean): boolean {
  if (typeof value !== 'string' || value.length > 2000) return false;
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
    if (url.username || url.password) return false;
    return allowQuery || url.search === '';
  } catch {
    return false;
  }
}

function IsDeliveryUrl(allowQuery: boolean, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isDeliveryUrl',
      validator: {
        validate: (value) => isDeliveryUrl(value, allowQuery),
        defaultMessage: (args) =>
          allowQuery
            ? `${args?.property} must be an absolute http or https URL`
            : `${args?.property} must be an absolute http or https URL without query parameters`,
      },
    },
    options,
  );
}

// ---- webhooks (upstream spec §4.7; body per the upstream's registerWebhook)

export class WebhookUrlDto {
  @IsDeliveryUrl(false) url: string;
}

export class CallbackUrlDto {
  @RequiredNested(() => WebhookUrlDto) main: WebhookUrlDto;
  @OptionalNested(() => WebhookUrlDto) backup?: WebhookUrlDto;
}

export class RegisterWebhookDto {
  @IsString() @MaxLength(100) applicationId: string;

  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(WEBHOOK_CATEGORIES.length)
  @IsString({ each: true })
  categories: string[];

  @RequiredNested(() => CallbackUrlDto) callbackUrl: CallbackUrlDto;

  @IsOptional() @IsObject() metadata?: Record<string, unknown>;
}

export class ResetWebhookSecretDto {
  /** Seconds the old secret keeps signing deliveries alongside the new one. */
  @IsNumber({ allowNaN: false, allowInfinity: false }) @Min(0) @Max(86_400) delay: number;
}

// ---- deprecated notifications (upstream spec §4.7, 6.1)

export class NotificationDto {
  @IsIn(['WEBHOOK']) type: 'WEBHOOK';
  @IsDeliveryUrl(true) url: string;
}

export class CreateEventSubscriptionDto {
  @IsIn(NOTIFICATION_EVENT_TYPES) eventTypeId: string;
  @RequiredNested(() => NotificationDto) notification: NotificationDto;
}

// ---- control API

export class RetryPolicyDto {
  @IsArray()
  @ArrayMaxSize(10)
  @IsInt({ each: true })
  @Min(0, { each: true })
  @Max(86_400_000, { each: true })
  delaysMs: number[];

  @IsOptional() @IsInt() @Min(50) @Max(60_000) timeoutMs?: number;
}

export class EmitEventDto {
  @IsOptional() @IsString() @MaxLength(100) applicationId?: string;
  @IsIn(WEBHOOK_CATEGORIES.map((c) => c.name)) type: string;
  @IsOptional() @IsObject() data?: Record<string, unknown>;
  @IsOptional() @IsBoolean() duplicate?: boolean;
  @IsOptional() @IsInt() @Min(-31_536_000) @Max(31_536_000) timestampOffsetSeconds?: number;
}

export class DeliveriesQueryDto {
  @IsOptional() @IsString() @MaxLength(100) eventId?: string;
  @IsOptional() @IsString() @MaxLength(100) applicationId?: string;
}
