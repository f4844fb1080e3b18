import { type ArgumentsHost, Catch, type ExceptionFilter, Inject } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type AppLogger, dependencyOutages, LOGGER } from '#libs/observability';
import { mapError, type MappedError } from './error-mapping.js';

/** Every exception of every route ends here and leaves as the error envelope; 500s are logged with their id. */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  constructor(@Inject(LOGGER) private readonly logger: AppLogger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    sendError(this.logger, exception, request, reply);
  }
}

export function sendError(
  logger: AppLogger,
  exception: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  const mapped = mappedAndLogged(logger, exception, request);
  void reply
    .status(mapped.status)
    .headers(mapped.headers)
    .type('application/json; charset=utf-8')
    .send(mapped.body);
}

/**
 * What the envelope of `exception` is, logged as every error answer is (an outage once, an unexpected
 * error with its stack): for answers that leave in another wrapping too (an MCP tool's error result).
 */
export function mappedAndLogged(
  logger: AppLogger,
  exception: unknown,
  request: Pick<FastifyRequest, 'id' | 'method' | 'url'>,
): MappedError {
  const tracingId = String(request.id);
  const mapped = mapError(exception, tracingId);
  if (mapped.outage) dependencyOutages.failed(logger, mapped.outage, exception);
  else if (mapped.unexpected) {
    logger.error({ err: exception, tracingId, method: request.method, url: request.url }, 'unhandled error');
  }
  return mapped;
}
