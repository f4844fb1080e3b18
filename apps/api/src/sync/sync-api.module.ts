import { Module } from '@nestjs/common';
import { SyncModule } from '#libs/domain/sync';
import { SyncController } from '../accounts/sync.controller.js';

/** Sync requests, sync runs and the stored transactions. */
@Module({ imports: [SyncModule], controllers: [SyncController] })
export class SyncApiModule {}
