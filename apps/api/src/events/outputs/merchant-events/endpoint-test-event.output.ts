import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { ENDPOINT_TEST_EVENT } from '#libs/domain/events';
import { MerchantEventFields } from './merchant-event-fields.output.js';

@ApiSchema({ description: '`data` of endpoint.test' })
export class EndpointTestEventData {
  @ApiProperty({ format: 'uuid', description: 'The endpoint the test was sent to' }) endpointId!: string;
}

@ApiSchema({ description: ENDPOINT_TEST_EVENT.description })
export class EndpointTestEventOutput extends MerchantEventFields {
  @ApiProperty({ enum: [ENDPOINT_TEST_EVENT.type] }) override type!: typeof ENDPOINT_TEST_EVENT.type;
  @ApiProperty({ type: EndpointTestEventData }) data!: EndpointTestEventData;
}
