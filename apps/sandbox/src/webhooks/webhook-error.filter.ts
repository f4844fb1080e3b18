import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Inject } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type AppLogger, LOGGER } from '#libs/observability';
import { replyWithError, SandboxError, webhookTracingIdOf } from '../core/index.js';

/** The numeric issue codes of the webhook endpoints (upstream spec §7.2; the upstream's error examples). */
export const WEBHOOK_ISSUE_CODES = {
  badRequest: 10600,
  invalidCredentials: 10700,
  notFound: 10800,
  internal: 11000,
  tooManyWebhooks: 14007,
} as const;

export function webhookBadRequest(message: string, parameter?: string): SandboxError {
  return new SandboxError(400, message, [
    {
      type: 'BAD_REQUEST',
      code: WEBHOOK_ISSUE_CODES.badRequest,
      message,
      ...(parameter ? { parameter } : {}),
    },
  ]);
}

export function webhookNotFound(message: string): SandboxError {
  return new SandboxError(404, message, [
    { type: 'INVALID_REQUEST', code: WEBHOOK_ISSUE_CODES.notFound, message },
  ]);
}

function webhookInternal(): SandboxError {
  const message = 'Unexpected server error';
  return new SandboxError(500, message, [
    { type: 'INTERNAL_SERVER_ERROR', code: WEBHOOK_ISSUE_CODES.internal, message },
  ]);
}

/**
 * Webhook routes number their issue codes where the rest of the API names them: this filter turns the
 * global validation pipe's 400s into code 10600 and anything unexpected into 500 with code 11000, and
 * leaves the errors the controller already numbered (and the guard's 401 10700) alone.
 */
@Catch()
export class WebhookErrorFilter implements ExceptionFilter {
  constructor(@Inject(LOGGER) private readonly logger: AppLogger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const error = this.toWebhookError(exception, request);
    replyWithError(reply, error, webhookTracingIdOf(request));
  }

  private toWebhookError(exception: unknown, request: FastifyRequest): SandboxError {
    let error: SandboxError | undefined;
    if (exception instanceof SandboxError) error = exception;
    else if (exception instanceof HttpException && exception.getStatus() < 500) {
      error = new SandboxError(exception.getStatus(), exception.message, [
        { type: 'BAD_REQUEST', code: 'BAD_REQUEST', message: exception.message },
      ]);
    }
    if (!error || error.status >= 500) {
      this.logger.error(
        { err: exception, reqId: request.id, url: request.url },
        'sandbox webhooks: unexpected error',
      );
      return webhookInternal();
    }
    if (error.status !== 400) return error;
    const issues =
      error.issues.length > 0
        ? error.issues
        : [{ type: 'BAD_REQUEST', code: 'BAD_REQUEST', message: error.message }];
    return new SandboxError(
      400,
      error.message,
      issues.map((issue) => ({ ...issue, code: WEBHOOK_ISSUE_CODES.badRequest })),
      { ...error.options, shape: 'standard' },
    );
  }
}
