import { Global, Module } from '@nestjs/common';
import { AdminCoreController } from './admin-core.controller.js';
import { ApplicationRegistryService } from './application-registry.service.js';
import { ConsentsStore } from './consents.store.js';
import { FaultsService } from './faults.service.js';
import { InstitutionsCatalog } from './institutions.catalog.js';
import { ResetRegistryService } from './reset-registry.service.js';
import { SandboxClockService } from './sandbox-clock.service.js';
import { SandboxEvents } from './sandbox-events.js';
import { SandboxStateFile } from './sandbox-state.file.js';
import { UsersStore } from './users.store.js';

const SHARED = [
  ResetRegistryService,
  SandboxClockService,
  ApplicationRegistryService,
  UsersStore,
  ConsentsStore,
  InstitutionsCatalog,
  SandboxEvents,
];

/** State and rules every feature module of the sandbox shares. */
@Global()
@Module({
  controllers: [AdminCoreController],
  // FaultsService is the bootstrap's request hook (app.get), no feature module's dependency.
  providers: [...SHARED, FaultsService, SandboxStateFile],
  exports: SHARED,
})
export class SandboxCoreModule {}
