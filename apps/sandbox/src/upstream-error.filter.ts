import { Catch, HttpException, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';

const STATUS_TEXT: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  424: 'FAILED_DEPENDENCY',
  500: 'INTERNAL SERVER ERROR',
};

/** The sandbox answers errors in the upstream's standard error shape (spec part 7), not the BFF's envelope. */
@Catch()
export class UpstreamErrorFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const status =
      exception instanceof HttpException
        ? exception.getStatus()
        : typeof (exception as { statusCode?: unknown }).statusCode === 'number'
          ? (exception as { statusCode: number }).statusCode
          : 500;
    const statusText = STATUS_TEXT[status] ?? (status >= 500 ? 'INTERNAL SERVER ERROR' : 'BAD_REQUEST');
    void reply.status(status).send({
      error: {
        tracingId: String(request.id),
        code: status,
        status: statusText,
        source: 'YAPILY',
        issues: [
          {
            type: statusText,
            code: statusText,
            message: exception instanceof Error ? exception.message : 'Error',
          },
        ],
      },
    });
  }
}
