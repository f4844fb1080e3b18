import { isIP } from 'node:net';
import { applyDecorators, createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { type ErrorDetail, invalidRequest } from '#libs/errors';
import type { RequestWithPrincipal } from './principal.js';

/** The upstream's PSU headers for one call, as the upstream client takes them. */
export interface PsuInput {
  id?: string;
  corporateId?: string;
  ipAddress?: string;
}

/** A login id as banks take it: 1 to 255 visible ASCII characters, inner spaces allowed. */
const LOGIN_ID = /^[\x21-\x7e](?:[\x20-\x7e]{0,253}[\x21-\x7e])?$/;

function headerOf(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === '' ? undefined : first;
}

/**
 * The PSU headers of this request, checked: `psu-id` and `psu-corporate-id` as the merchant sends them,
 * and `psu-ip-address` the end user's address. A user session is the user's own browser, so its address
 * is the connection's (through the trusted proxies, `API_TRUST_PROXY`), whatever header it sends; a
 * merchant backend names the user's, never its own.
 */
export const Psu = createParamDecorator((_data: unknown, context: ExecutionContext): PsuInput => {
  const request = context.switchToHttp().getRequest<FastifyRequest & RequestWithPrincipal>();
  const problems: ErrorDetail[] = [];
  const loginId = (name: string) => {
    const value = headerOf(request, name);
    if (value !== undefined && !LOGIN_ID.test(value)) {
      problems.push({ field: name, issue: 'must be 1 to 255 visible ASCII characters' });
    }
    return value;
  };
  const id = loginId('psu-id');
  const corporateId = loginId('psu-corporate-id');
  let ipAddress = headerOf(request, 'psu-ip-address');
  if (request.principal?.kind === 'user-session') ipAddress = request.ip;
  else if (ipAddress !== undefined && isIP(ipAddress) === 0) {
    problems.push({ field: 'psu-ip-address', issue: 'must be an IPv4 or IPv6 address' });
  }
  if (problems.length > 0) throw invalidRequest(problems);
  return {
    ...(id !== undefined ? { id } : {}),
    ...(corporateId !== undefined ? { corporateId } : {}),
    ...(ipAddress !== undefined ? { ipAddress } : {}),
  };
});

/** The PSU headers in the OpenAPI document of a route that passes them upstream. */
export const ApiPsuHeaders = () =>
  applyDecorators(
    ApiHeader({
      name: 'psu-id',
      required: false,
      description:
        "The user's login id at the bank, for a bank that requires it (its `psuHeaders`, GET /v1/institutions). Missing where the bank requires it to connect or pay: 400 naming it, before the bank is asked.",
    }),
    ApiHeader({
      name: 'psu-corporate-id',
      required: false,
      description: "The business's login id at the bank, for a bank whose `psuHeaders` name it.",
    }),
    ApiHeader({
      name: 'psu-ip-address',
      required: false,
      description:
        "The end user's IP address, when a merchant backend calls for a bank whose `psuHeaders` name it. A user session's own address is taken instead (through the proxies `API_TRUST_PROXY` trusts).",
    }),
  );
