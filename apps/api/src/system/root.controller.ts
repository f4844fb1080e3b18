import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { Public } from '#libs/http';

class RootLinksDto {
  @ApiProperty({ example: 'http://localhost:3000/docs' }) docs!: string;
  @ApiProperty({ example: 'http://localhost:3000/docs-json' }) openapi!: string;
  @ApiProperty({ example: 'http://localhost:3000/health/ready' }) health!: string;
  @ApiProperty({ example: 'http://localhost:3000/metrics' }) metrics!: string;
  @ApiPropertyOptional({
    example: 'http://localhost:5020',
    description: 'The demo merchant app, when it runs',
  })
  demo?: string;
}

class RootIndexDto {
  @ApiProperty({ example: 'open-banking BFF' }) name!: string;
  @ApiProperty({ type: RootLinksDto }) links!: RootLinksDto;
}

// Public: a person who opens the api's address in a browser is told where to go, nothing more.
@ApiTags('operations')
@Public()
@Controller()
export class RootController {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  @Get()
  @ApiOkResponse({ type: RootIndexDto, description: 'A small index: the docs, health, metrics and the demo' })
  index(): RootIndexDto {
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
