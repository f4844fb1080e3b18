import { Controller, Get } from '@nestjs/common';
import { SandboxAccess } from './core/index.js';

/** The sandbox's front door and liveness, open to anyone (the api's readiness probe calls `/`). */
@SandboxAccess('public')
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
