import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Controller, Get, Param, Res } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { DomainError, ErrorCode } from '#libs/errors';
import { ApiErrorResponse, Public } from '#libs/http';

/** A versioned file never changes: a new SDK is a new version, at a new path. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
const BUNDLE = /^merchant-sdk@\d+\.\d+\.\d+(-[\w.]+)?\.js$/;

/** dist/sdk of the build this process runs from (or of the repository, when run from the sources). */
function sdkDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const distAt = here.lastIndexOf(`${sep}dist${sep}`);
  return distAt >= 0 ? join(here.slice(0, distAt), 'dist', 'sdk') : resolve(here, '../../../../dist/sdk');
}

/** The bundle `npm run build` made (scripts/sdk-bundle.mjs), read once; none when it was not built. */
function loadBundle(): { name: string; bytes: Buffer } | null {
  const dir = sdkDir();
  const name = existsSync(dir) ? readdirSync(dir).find((file) => BUNDLE.test(file)) : undefined;
  return name ? { name, bytes: readFileSync(join(dir, name)) } : null;
}

/**
 * The merchant SDK as one ES module for pages without a bundler (docs/sdk.md, "A plain page"): the client
 * and `<bff-connect>`, at `/sdk/merchant-sdk@<version>.js`. Public and readable from any origin: it is the
 * same code for every merchant and holds nothing of theirs.
 */
@ApiTags('sdk')
@Public()
@Controller('sdk')
export class SdkBundleController {
  private readonly bundle = loadBundle();

  @Get(':file')
  @ApiOperation({
    summary: 'The merchant SDK as one ES module, for pages without a bundler',
    description:
      'The client and `<bff-connect>`: `import { createBffClient } from \'<api>/sdk/merchant-sdk@<version>.js\'`. Readable from any origin and cached for a year: a new SDK is a new version, at a new path. docs/sdk.md ("A plain page") pins its subresource-integrity hash in an import map. 404 for any other file name.',
  })
  @ApiOkResponse({
    description: 'The module',
    content: { 'text/javascript': { schema: { type: 'string' } } },
  })
  @ApiNotFoundResponse({
    type: ApiErrorResponse,
    description: 'NOT_FOUND: another file name (it names the one served)',
  })
  serve(@Param('file') file: string, @Res({ passthrough: true }) reply: FastifyReply): Buffer {
    if (!this.bundle || file !== this.bundle.name) {
      throw new DomainError(
        ErrorCode.NOT_FOUND,
        this.bundle
          ? `No such file: this api serves /sdk/${this.bundle.name}.`
          : 'The SDK bundle was not built.',
      );
    }
    void reply.headers({
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': IMMUTABLE,
      'access-control-allow-origin': '*',
      'cross-origin-resource-policy': 'cross-origin',
    });
    return this.bundle.bytes;
  }
}
