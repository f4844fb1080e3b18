import { Controller, Get } from '@nestjs/common';

/** The sandbox's front door; the upstream interface itself arrives with the sandbox issue. */
@Controller()
export class SandboxInfoController {
  @Get()
  info() {
    return {
      meta: { tracingId: 'sandbox' },
      data: { service: 'open-banking-aggregation-sandbox', interfaceVersion: '12.17.0' },
    };
  }

  @Get('health')
  health() {
    return { status: 'ok' };
  }
}
