import { Global, Module } from '@nestjs/common';
import { OpenApiDocumentService } from './openapi-document.service.js';

/** Global: the document is the api's one, published at boot, read by any route that serves part of it. */
@Global()
@Module({ providers: [OpenApiDocumentService], exports: [OpenApiDocumentService] })
export class OpenApiDocumentModule {}
