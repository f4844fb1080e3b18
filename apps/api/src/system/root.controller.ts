import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { Public } from '#libs/http';
import { RootIndexOutput } from './outputs/root-index.output.js';

// Public: a person who opens the api's address in a browser is told where to go, nothing more.
@ApiTags('operations')
@Public()
@Controller()
export class RootController {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  @Get()
  @ApiOkResponse({
    type: RootIndexOutput,
    description: 'A small index: the docs, health, metrics and the demo',
  })
  index(): RootIndexOutput {
    const base = this.config.api.publicUrl;
    return {
      name: 'open-banking BFF',
      links: {
        docs: `${base}/docs`,
        openapi: `${base}/docs-json`,
        health: `${base}/health/ready`,
        metrics: `${base}/metrics`,
        ...(this.config.demo.publicUrl ? { demo: this.config.demo.publicUrl } : {}),
      },
    };
  }
}
