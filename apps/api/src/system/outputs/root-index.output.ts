import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class RootLinksOutput {
  @ApiProperty({ example: 'http://localhost:3000/docs' }) docs!: string;
  @ApiProperty({ example: 'http://localhost:3000/docs-json' }) openapi!: string;
  @ApiProperty({ example: 'http://localhost:3000/health/ready' }) health!: string;
  @ApiProperty({ example: 'http://localhost:3000/metrics' }) metrics!: string;
  @ApiPropertyOptional({
    example: 'http://localhost:5020',
    description: 'The demo merchant app, when it runs; absent when DEMO_PUBLIC_URL is not set',
  })
  demo?: string;
}

export class RootIndexOutput {
  @ApiProperty({ example: 'open-banking BFF' }) name!: string;
  @ApiProperty({ type: RootLinksOutput }) links!: RootLinksOutput;
}
