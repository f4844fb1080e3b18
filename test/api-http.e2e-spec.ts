import { Controller, Get, Module, Post, Body } from '@nestjs/common';
import { IsInt, Max, Min } from 'class-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLogger } from '#libs/testing';
import { startApi, startSandbox, type RunningHttpApp } from './support/running-apps.js';

describe('api: health, error envelope, request ids, metrics', () => {
  let sandbox: RunningHttpApp;
  let api: RunningHttpApp;

  beforeAll(async () => {
    sandbox = await startSandbox();
    api = await startApi(sandbox.url);
  });
  afterAll(async () => {
    await api?.close();
    await sandbox?.close();
  });

  it('answers /health/live without consulting dependencies', async () => {
    const response = await fetch(`${api.url}/health/live`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: 'ok' });
  });

  it('answers /health/ready 200 when Postgres, Redis and the upstream answer', async () => {
    const response = await fetch(`${api.url}/health/ready`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { details: Record<string, { status: string }> };
    expect(Object.keys(body.details).sort()).toEqual(['postgres', 'redis', 'upstream']);
    for (const check of Object.values(body.details)) expect(check.status).toBe('up');
  });

  it('answers an unknown route with 404 in the error envelope', async () => {
    const response = await fetch(`${api.url}/v1/no-such-thing`);
    expect(response.status).toBe(404);
    const body = (await response.json()) as { error: Record<string, unknown> };
    expect(body.error).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    expect(body.error.tracingId).toBe(response.headers.get('x-request-id'));
  });

  it('answers malformed JSON with 400 VALIDATION_FAILED, not 500', async () => {
    const response = await fetch(`${api.url}/health/live`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"unterminated": ',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: 'VALIDATION_FAILED', status: 400 } });
  });

  it('answers a body over the limit with 413 PAYLOAD_TOO_LARGE', async () => {
    const response = await fetch(`${api.url}/health/live`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ blob: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE', status: 413 } });
  });

  it('accepts and echoes a well-formed x-request-id as the tracingId, and replaces a malformed one', async () => {
    const good = await fetch(`${api.url}/nowhere`, { headers: { 'x-request-id': 'merchant-req-42' } });
    expect(good.headers.get('x-request-id')).toBe('merchant-req-42');
    expect(((await good.json()) as { error: { tracingId: string } }).error.tracingId).toBe('merchant-req-42');

    const bad = await fetch(`${api.url}/nowhere`, { headers: { 'x-request-id': 'has spaces and <html>' } });
    expect(bad.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('exposes Prometheus metrics labelled by route template, not raw URL', async () => {
    await fetch(`${api.url}/health/live`);
    const text = await (await fetch(`${api.url}/metrics`)).text();
    expect(text).toMatch(/http_requests_total\{[^}]*route="\/health\/live"[^}]*\} \d+/);
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).not.toContain('/v1/no-such-thing');
  });
});

describe('api: readiness when a dependency is down', () => {
  it('answers 503 in the error envelope naming the upstream when it is unreachable', async () => {
    // Port 9 (discard) on loopback: nothing listens, the connection is refused at once.
    const api = await startApi('http://127.0.0.1:9');
    try {
      const response = await fetch(`${api.url}/health/ready`);
      expect(response.status).toBe(503);
      const body = (await response.json()) as {
        error: { code: string; details?: { field: string; issue: string }[] };
      };
      expect(body.error.code).toBe('UPSTREAM_UNAVAILABLE');
      expect(body.error.details).toEqual(
        expect.arrayContaining([expect.objectContaining({ field: 'upstream' })]),
      );
      expect(body.error.details?.map((d) => d.field)).not.toContain('postgres');
    } finally {
      await api.close();
    }
  });
});

class ProbeDto {
  @IsInt()
  @Min(1)
  @Max(1000)
  limit: number;
}

@Controller('probe')
class UndeclaredController {
  @Get()
  open() {
    return { reached: true };
  }

  @Post()
  create(@Body() body: ProbeDto) {
    return body;
  }
}

@Module({ controllers: [UndeclaredController] })
class UndeclaredModule {}

describe('api: default deny and validation', () => {
  it('refuses a route that declares no authentication', async () => {
    const { createHttpApp, DefaultDenyGuard, HttpErrorFilter, createValidationPipe } =
      await import('#libs/http');
    const { ObservabilityModule, Metrics } = await import('#libs/observability');
    const { APP_FILTER, APP_GUARD, APP_PIPE } = await import('@nestjs/core');
    const { logger } = captureLogger();
    const metrics = new Metrics('probe');
    @Module({
      imports: [ObservabilityModule.forRoot(logger, metrics), UndeclaredModule],
      providers: [
        { provide: APP_GUARD, useClass: DefaultDenyGuard },
        { provide: APP_PIPE, useFactory: createValidationPipe },
        { provide: APP_FILTER, useClass: HttpErrorFilter },
      ],
    })
    class ProbeAppModule {}
    const app = await createHttpApp(ProbeAppModule, { logger, metrics, bodyLimitBytes: 1024 });
    await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const url = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
      const response = await fetch(`${url}/probe`);
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ error: { code: 'UNAUTHENTICATED' } });
    } finally {
      await app.close();
    }
  });
});
