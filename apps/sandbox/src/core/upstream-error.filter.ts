import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Inject } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type AppLogger, LOGGER } from '#libs/observability';
import { tracingIdOf } from './envelope.js';
import { replyWithError } from './faults.service.js';
import { SandboxError, STATUS_TEXT, webhookCodes } from './sandbox-error.js';

/** Converts anything thrown into a SandboxError: the sandbox answers every error in the upstream's shapes. */
function toSandboxError(exception: unknown): SandboxError {
  if (exception instanceof SandboxError) return exception;
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const text = STATUS_TEXT[status] ?? 'ERROR';
    return new SandboxError(status, exception.message, [
      { type: text, code: text, message: exception.message },
    ]);
  }
  const fastify = exception as { statusCode?: unknown; code?: unknown; message?: string };
  if (
    typeof fastify.statusCode === 'number' &&
    typeof fastify.code === 'string' &&
    fastify.code.startsWith('FST_')
  ) {
    return fastify.statusCode < 500
      ? new SandboxError(fastify.statusCode, fastify.message ?? 'Bad request', [
          { type: 'BAD_REQUEST', code: 'BAD_REQUEST', message: fastify.message ?? 'Bad request' },
        ])
      : SandboxError.internal();
  }
  return SandboxError.internal();
}

@Catch()
export class UpstreamErrorFilter implements ExceptionFilter {
  constructor(@Inject(LOGGER) private readonly logger: AppLogger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const error = webhookCodes(request.url, toSandboxError(exception));
    if (!(exception instanceof SandboxError) && error.status >= 500) {
      this.logger.error({ err: exception, reqId: request.id, url: request.url }, 'sandbox: unhandled error');
    }
    replyWithError(reply, error, tracingIdOf(request));
  }
}
