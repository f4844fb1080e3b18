import { Body, Controller, Get, Module, Post, Query } from '@nestjs/common';
import { APP_FILTER, APP_PIPE, DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ACCESS_CONFIG,
  AUTH_METADATA,
  createHttpApp,
  createValidationPipe,
  HttpErrorFilter,
  type NestFastifyApplication,
  PROBE_CONFIG,
  ProbeRoutes,
  Public,
  registerAccess,
  requestsAnsweredBy,
  routeConfigOf,
  routeHandlersOf,
} from '#libs/http';
import { Metrics, ObservabilityModule } from '#libs/observability';
import { HealthController } from '../apps/api/src/system/health.controller.js';
import { MetricsController } from '../apps/api/src/system/metrics.controller.js';
import { ApiClient, captureLogger, eventually, startApi, startStack, useStack } from './kit/index.js';

describe('api: health, error envelope, request ids, metrics', () => {
  const stack = useStack();
  let client: ApiClient;

  beforeAll(() => {
    client = stack.anonymous;
  });

  it('answers GET / with a small index, not 404, naming the demo only when it runs', async () => {
    const response = await client.get<{ links: Record<string, string> }>('/');
    expect(response.status).toBe(200);
    expect(Object.keys(response.body.links).sort()).toEqual(['docs', 'health', 'metrics', 'openapi']);
    const withDemo = await stack.startApi({ DEMO_PUBLIC_URL: 'http://localhost:5020/' });
    try {
      const index = await new ApiClient(withDemo.url).get<{ links: Record<string, string> }>('/');
      expect(index.body.links.demo).toBe('http://localhost:5020');
    } finally {
      await withDemo.close();
    }
  });

  it('answers /health/live without consulting dependencies', async () => {
    const response = await client.get('/health/live');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'ok' });
  });

  it('answers /health/ready (and /health, the same) 200 when Postgres, Redis and the upstream answer', async () => {
    const plain = await client.get<{ details: Record<string, { status: string }> }>('/health');
    expect(plain.status).toBe(200);
    expect(Object.keys(plain.body.details).sort()).toContain('upstream');
    const response = await client.get<{ details: Record<string, { status: string }> }>('/health/ready');
    expect(response.status).toBe(200);
    expect(Object.keys(response.body.details).sort()).toEqual([
      'postgres',
      'redis',
      'upstream',
      'upstreamWebhooks',
    ]);
    for (const check of Object.values(response.body.details)) expect(check.status).toBe('up');
    // The receiver's state is said, not judged: registered or missing, and ready either way.
    expect(['registered', 'missing']).toContain(
      (response.body.details.upstreamWebhooks as { receiver?: string }).receiver,
    );
  });

  it('answers an unknown route with 404 in the error envelope', async () => {
    const response = await client.get<{ error: Record<string, unknown> }>('/v1/no-such-thing');
    expect(response.status).toBe(404);
    expect(response.body.error).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    expect(response.body.error.tracingId).toBe(response.headers.get('x-request-id'));
  });

  it('answers a body over the limit with 413 PAYLOAD_TOO_LARGE', async () => {
    const response = await client.post('/health/live', { blob: 'x'.repeat(2 * 1024 * 1024) });
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE', status: 413 } });
  });

  it('accepts and echoes a well-formed x-request-id as the tracingId, and replaces a malformed one', async () => {
    const good = await client.get<{ error: { tracingId: string } }>('/nowhere', {
      headers: { 'x-request-id': 'merchant-req-42' },
    });
    expect(good.headers.get('x-request-id')).toBe('merchant-req-42');
    expect(good.body.error.tracingId).toBe('merchant-req-42');

    const bad = await client.get('/nowhere', { headers: { 'x-request-id': 'has spaces and <html>' } });
    expect(bad.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('exposes Prometheus metrics labelled by route template, not raw URL', async () => {
    await client.get('/health/live');
    const text = (await client.get<string>('/metrics')).body;
    expect(text).toMatch(/http_requests_total\{[^}]*route="\/health\/live"[^}]*\} \d+/);
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).not.toContain('/v1/no-such-thing');
  });
});

describe('api: readiness when a dependency is down', () => {
  it('answers 503 in the error envelope naming the upstream when it is unreachable', async () => {
    // Port 9 (discard) on loopback: nothing listens, the connection is refused at once. No stack: its
    // sandbox would be the upstream this api must not reach.
    const api = await startApi('http://127.0.0.1:9');
    try {
      const response = await new ApiClient(api.url).get<{
        error: { code: string; details?: { field: string; issue: string }[] };
      }>('/health/ready');
      expect(response.status).toBe(503);
      const { body } = response;
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
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1000)
  limit: number;

  @IsOptional()
  @IsString()
  name?: string;
}

@Controller('probe')
class ProbeController {
  /** Declares nothing: the default-deny guard must refuse it. */
  @Get('undeclared')
  undeclared() {
    return { reached: true };
  }

  @Public()
  @Post()
  create(@Body() body: ProbeDto) {
    return body;
  }

  @Public()
  @Get()
  list(@Query() query: ProbeDto) {
    return query;
  }
}

describe('api: default deny and validation (a probe app built with the same http conventions)', () => {
  let app: NestFastifyApplication;
  let url: string;

  beforeAll(async () => {
    const { logger } = captureLogger();
    const metrics = new Metrics('probe');
    @Module({
      imports: [ObservabilityModule.forRoot(logger, metrics)],
      controllers: [ProbeController],
      providers: [
        { provide: APP_PIPE, useFactory: createValidationPipe },
        { provide: APP_FILTER, useClass: HttpErrorFilter },
      ],
    })
    class ProbeAppModule {}
    app = await createHttpApp(ProbeAppModule, { logger, metrics, bodyLimitBytes: 1024 });
    // No credentials of any kind: only what the routes declare public answers.
    registerAccess(app.getHttpAdapter().getInstance(), logger, { authenticate: () => undefined });
    await app.listen({ host: '127.0.0.1', port: 0 });
    url = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await app?.close();
  });

  const post = (body: string, contentType = 'application/json') =>
    fetch(`${url}/probe`, { method: 'POST', headers: { 'content-type': contentType }, body });

  it('refuses a route that declares no authentication', async () => {
    const response = await fetch(`${url}/probe/undeclared`);
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: { code: 'UNAUTHENTICATED', status: 401 } });
  });

  it('accepts a valid body and transforms query strings to their declared types', async () => {
    expect(await (await post('{"limit": 5, "name": "x"}')).json()).toEqual({ limit: 5, name: 'x' });
    const query = await fetch(`${url}/probe?limit=7`);
    expect(query.status).toBe(200);
  });

  it.each([
    ['malformed JSON', '{"limit": ', 'application/json', []],
    ['a wrong type', '{"limit": "five"}', 'application/json', ['limit']],
    ['an out-of-range value', '{"limit": 1001}', 'application/json', ['limit']],
    ['an unknown field', '{"limit": 5, "admin": true}', 'application/json', ['admin']],
    ['an array body', '[1, 2]', 'application/json', []],
    ['a null body', 'null', 'application/json', []],
    ['an unsupported content type', 'limit=5', 'text/plain', []],
  ])('answers %s with 400 VALIDATION_FAILED in the envelope', async (_name, body, contentType, fields) => {
    const response = await post(body, contentType);
    expect(response.status).toBe(400);
    const envelope = (await response.json()) as {
      error: { code: string; status: number; details?: { field: string }[] };
    };
    expect(envelope.error).toMatchObject({ code: 'VALIDATION_FAILED', status: 400 });
    for (const field of fields) expect(envelope.error.details?.map((d) => d.field)).toContain(field);
  });

  it('answers an out-of-range query parameter with 400 naming it', async () => {
    const response = await fetch(`${url}/probe?limit=0`);
    expect(response.status).toBe(400);
    const envelope = (await response.json()) as { error: { details: { field: string; issue: string }[] } };
    expect(envelope.error.details).toEqual([expect.objectContaining({ field: 'limit' })]);
  });

  it('answers a malformed URL with 400 in the envelope', async () => {
    const response = await fetch(`${url}/probe/%E0%A4%A`);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { code: 'VALIDATION_FAILED', tracingId: expect.any(String) },
    });
  });
});

describe('api: every route declares its authentication', () => {
  it('finds an @Auth/@Public declaration on every handler of the real api, in its route config', async () => {
    const stack = await startStack();
    const { api } = stack;
    try {
      const discovery = api.app.get(DiscoveryService);
      const scanner = api.app.get(MetadataScanner);
      const reflector = api.app.get(Reflector);
      const undeclared: string[] = [];
      let routes = 0;
      for (const wrapper of discovery.getControllers()) {
        const instance = wrapper.instance as object | undefined;
        if (!instance) continue;
        const prototype = Object.getPrototypeOf(instance) as Record<string, unknown>;
        for (const method of scanner.getAllMethodNames(prototype)) {
          const handler = prototype[method] as () => unknown;
          if (Reflect.getMetadata('path', handler) === undefined) continue;
          routes += 1;
          const declared = reflector.getAllAndOverride<unknown[]>(AUTH_METADATA, [
            handler,
            instance.constructor,
          ]);
          // What the access hook reads must be what Nest's own metadata says, the method's over the class's.
          const config = routeConfigOf(handler)[ACCESS_CONFIG];
          if (!declared?.length || JSON.stringify(config) !== JSON.stringify(declared)) {
            undeclared.push(`${instance.constructor.name}.${method}: ${JSON.stringify([declared, config])}`);
          }
        }
      }
      expect(routes).toBeGreaterThanOrEqual(3);
      expect(undeclared).toEqual([]);
    } finally {
      await stack.close();
    }
  });
});

@ProbeRoutes()
@Public()
@Controller('health')
class PolledController {
  @Get('live')
  live() {
    return { status: 'ok' };
  }
}

@Public()
@Controller('work')
class WorkController {
  @Get()
  work() {
    return { done: true };
  }
}

describe("api: the requests an app answered, its probes left out (the api's trim waits for none)", () => {
  it('counts every answer but those of routes an orchestrator or a scraper polls', async () => {
    const { logger } = captureLogger();
    const metrics = new Metrics('answered');
    @Module({
      imports: [ObservabilityModule.forRoot(logger, metrics)],
      controllers: [PolledController, WorkController],
    })
    class AnsweredAppModule {}
    const app = await createHttpApp(AnsweredAppModule, { logger, metrics, bodyLimitBytes: 1024 });
    registerAccess(app.getHttpAdapter().getInstance(), logger, { authenticate: () => undefined });
    try {
      await app.listen({ host: '127.0.0.1', port: 0 });
      const url = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
      for (let i = 0; i < 3; i += 1) expect((await fetch(`${url}/health/live`)).status).toBe(200);
      expect((await fetch(`${url}/work`)).status).toBe(200);
      // The probes were answered first: once the work is counted, theirs would be too.
      expect(await eventually('the work counted', () => requestsAnsweredBy(app) || undefined)).toBe(1);
    } finally {
      await app.close();
    }
  });

  it("marks the real api's health and metrics routes as probes", () => {
    for (const controller of [HealthController, MetricsController]) {
      const routes = routeHandlersOf(controller);
      expect(routes.length).toBeGreaterThan(0);
      for (const handler of routes) expect(routeConfigOf(handler)[PROBE_CONFIG]).toBe(true);
    }
  });
});
