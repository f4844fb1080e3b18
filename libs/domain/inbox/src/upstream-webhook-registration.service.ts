import { Injectable } from '@nestjs/common';

/** Placeholder: registration of our receiver with the upstream (filled in by the admin-webhooks work). */
@Injectable()
export class UpstreamWebhookRegistrationService {}
