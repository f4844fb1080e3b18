import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { declarePublicRoutes, type NestFastifyApplication, SECURITY_SCHEMES } from '#libs/http';
import { OpenApiDocumentService } from '../common/openapi-document/openapi-document.service.js';
import { strictNullableReferences } from '../common/openapi-nullable.js';
import { markOpenSchemas } from '../common/openapi-open-schemas.js';
import { declarePathRefusals } from '../common/openapi-path-refusals.js';
import { declareRateLimitHeaders } from '../common/openapi-rate-limit-headers.js';
import { addUnionSchemas } from '../common/openapi-unions.js';
import { applyUndeclaredQueryRule } from '../common/undeclared-query.hook.js';
import { operationId } from './operation-ids.js';
import { registerResponseSchemas } from './response-schemas.js';

/**
 * The OpenAPI document, generated from the controllers' decorators, served at /docs (Swagger UI) and
 * /docs-json. Both are public: Swagger's own Fastify routes, declared public here (they have no `@Auth`).
 * The same document gives every route its response schemas (`responseSchemas: false` leaves them
 * to JSON.stringify: the comparison the serialisation test makes). Unions declared with `ApiUnionSchema`
 * (the merchant events) are components of their own.
 */
export function setUpOpenApi(app: NestFastifyApplication, options: { responseSchemas?: boolean } = {}): void {
  const config = new DocumentBuilder()
    .setTitle('Open-banking BFF')
    .setDescription(
      "The merchant API. Success: `{ data, meta: { tracingId, … }, links? }`. Every 4xx and 5xx: the `ApiErrorResponse` envelope. CORS: a browser may preflight /v1 from an origin any merchant lists; the real answer carries CORS headers only for an origin of the caller's own merchant. Operator routes never answer CORS.",
    )
    .setVersion('1')
    // addSecurity, not addBearerAuth: that one claims `bearerFormat: JWT`, and none of these tokens is a JWT.
    .addSecurity(SECURITY_SCHEMES.operator, { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN' })
    .addSecurity(SECURITY_SCHEMES.merchant, {
      type: 'http',
      scheme: 'bearer',
      description: 'Merchant API key `mk_…` (opaque)',
    })
    .addSecurity(SECURITY_SCHEMES.userSession, {
      type: 'http',
      scheme: 'bearer',
      description: 'User session token `us_…` (opaque, short-lived)',
    })
    .build();
  const document = SwaggerModule.createDocument(app, config, { operationIdFactory: operationId });
  addUnionSchemas(document);
  markOpenSchemas(document);
  declarePathRefusals(document);
  applyUndeclaredQueryRule(document, app.getHttpAdapter().getInstance());
  declareRateLimitHeaders(document);
  strictNullableReferences(document);
  // The viewer's routes are Swagger's own, outside the controllers: public, like the document.
  declarePublicRoutes(
    app.getHttpAdapter().getInstance(),
    (url) => url === '/docs' || url.startsWith('/docs/') || url.startsWith('/docs-'),
  );
  app.get(OpenApiDocumentService).publish(document);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs-json', yamlDocumentUrl: 'docs-yaml' });
  if (options.responseSchemas !== false) {
    registerResponseSchemas(app.getHttpAdapter().getInstance(), document as never);
  }
}
