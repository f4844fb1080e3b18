import { Controller } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Auth, AuthKind } from '#libs/http';

/** Placeholder: operator routes registering our webhook receiver with the upstream. */
@ApiTags('operator')
@Auth(AuthKind.Operator)
@Controller('admin/upstream')
export class AdminUpstreamWebhooksController {}
