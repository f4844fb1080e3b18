import { applyDecorators, Controller } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Auth, AuthKind } from '#libs/http';

/**
 * A controller whose routes the user's browser may call with a user session as well as the merchant's
 * backend with its API key (docs/api-guide.md, "Authentication"), documented under `tag`. A session
 * reaches only its own user's resources; the services answer 404 for any other's.
 */
export const SessionReachableController = (tag: string, path: string) =>
  applyDecorators(ApiTags(tag), Auth(AuthKind.Merchant, AuthKind.UserSession), Controller(path));
