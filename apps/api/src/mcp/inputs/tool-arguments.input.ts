import { ApiProperty } from '@nestjs/swagger';
import { ListInput } from '../../common/inputs/list.input.js';
import { IsUserReference } from '../../common/inputs/user-reference.js';
import { ToolId } from '../mcp-tool-kit.js';

// The tools' arguments: each route's own query input, with the ids its path names as arguments beside.

export class FindCustomerInput {
  // Required here: GET /v1/users answers a page without it, which is no tool.
  @ApiProperty({ description: 'Your reference for the customer' })
  @IsUserReference()
  reference!: string;
}

export class UserInput {
  @ToolId('The user id')
  userId!: string;
}

export class ConsentInput {
  @ToolId('The consent id')
  consentId!: string;
}

export class SyncRunInput {
  @ToolId('The sync run id')
  syncId!: string;
}

export class UserListInput extends ListInput {
  @ToolId('The user id')
  userId!: string;
}

export class ConsentListInput extends ListInput {
  @ToolId('The consent id')
  consentId!: string;
}

export class AccountListInput extends ListInput {
  @ToolId('The account id')
  accountId!: string;
}

export class EndpointListInput extends ListInput {
  @ToolId('The event endpoint id')
  endpointId!: string;
}

export class DeliveryListInput extends EndpointListInput {
  @ToolId('The delivery id')
  deliveryId!: string;
}

export class UpstreamCallListInput extends ListInput {
  @ToolId('A sync run id', { optional: true })
  syncId?: string;

  @ToolId('A consent id', { optional: true })
  consentId?: string;

  @ToolId('A payment id', { optional: true })
  paymentId?: string;
}
