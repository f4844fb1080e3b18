import { Module } from '@nestjs/common';
import { AuthModule } from '../common/auth/auth.module.js';
import { ConsoleSessionController } from './console-session.controller.js';

@Module({ imports: [AuthModule], controllers: [ConsoleSessionController] })
export class ConsoleApiModule {}
