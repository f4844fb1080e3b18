import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { SECURITY_SCHEMES, type NestFastifyApplication } from '#libs/http';

/**
 * The OpenAPI document, generated from the controllers' decorators, served at /docs (Swagger UI) and
 * /docs-json. Both are public: they are plain Fastify routes outside the guards, like the health routes.
 */
export function setUpOpenApi(app: NestFastifyApplication): void {
  const config = new DocumentBuilder()
    .setTitle('Open-banking BFF')
    .setDescription(
      "The merchant API. Success: `{ data, meta: { tracingId, … }, links? }`. Every 4xx and 5xx: the `ApiErrorResponse` envelope. CORS: a browser may preflight /v1 from an origin any merchant lists; the real answer carries CORS headers only for an origin of the caller's own merchant. Operator routes never answer CORS.",
    )
    .setVersion('1')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN' }, SECURITY_SCHEMES.operator)
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', description: 'Merchant API key `mk_…`' },
      SECURITY_SCHEMES.merchant,
    )
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', description: 'User session token `us_…` (short-lived)' },
      SECURITY_SCHEMES.userSession,
    )
    .build();
  const document = SwaggerModule.createDocument(app, config);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs-json', yamlDocumentUrl: 'docs-yaml' });
}
