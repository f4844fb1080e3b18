import { Module } from '@nestjs/common';
import { AuthModule } from '../common/auth/auth.module.js';
import { ConsoleSessionController } from './console-session.controller.js';
import { ConsoleStatic } from './console-static.js';

@Module({ imports: [AuthModule], controllers: [ConsoleSessionController], providers: [ConsoleStatic] })
export class ConsoleApiModule {}
