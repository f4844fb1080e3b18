import { Module } from '@nestjs/common';
import { ConsentsModule } from '#libs/domain/consents';
import { ConversionController } from './conversion.controller.js';

/** What merchants and the operator learn from their connections (docs/insights.md). */
@Module({
  imports: [ConsentsModule],
  controllers: [ConversionController],
})
export class InsightsApiModule {}
