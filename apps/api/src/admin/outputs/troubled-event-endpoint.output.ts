import { ApiProperty } from '@nestjs/swagger';
import { EventEndpointOutput } from '../../common/outputs/event-endpoint.output.js';

/** A merchant's failing or disabled endpoint, as the operator sees it: with its merchant. */
export class TroubledEventEndpointOutput extends EventEndpointOutput {
  @ApiProperty({ format: 'uuid' }) merchantId!: string;
  @ApiProperty({ description: 'The merchant’s name as it is now' }) merchantName!: string;
}
