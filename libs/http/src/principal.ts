import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Caller, OperatorCaller, TenantCaller } from '#libs/context';

/** Where the access hook puts the request's caller (libs/http registerAccess). */
export interface RequestWithPrincipal {
  principal?: Caller;
}

function callerOf(context: ExecutionContext): Caller {
  const caller = context.switchToHttp().getRequest<RequestWithPrincipal>().principal;
  // A route reachable without a caller would be a wiring bug; failing loudly beats a silent undefined.
  if (!caller) throw new Error('a caller decorator used on a route without an authenticated caller');
  return caller;
}

/**
 * The merchant or session a merchant route acts for: what every domain service that reads tenant data
 * takes first. On a route the operator may call, this is a wiring bug, so it fails loudly.
 */
export const Tenant = createParamDecorator((_data: unknown, context: ExecutionContext): TenantCaller => {
  const caller = callerOf(context);
  if (caller.kind === 'operator') throw new Error('@Tenant() used on a route the operator may call');
  return caller;
});

/** The operator on an operator-only route: what a read across merchants takes as its warrant. */
export const Operator = createParamDecorator((_data: unknown, context: ExecutionContext): OperatorCaller => {
  const caller = callerOf(context);
  if (caller.kind !== 'operator') throw new Error('@Operator() used on a route a merchant may call');
  return caller;
});
