/** The bearer credential of a request, or undefined when there is none (or another scheme). */
export function bearerToken(headers: Record<string, string | string[] | undefined>): string | undefined {
  const header = headers.authorization;
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer[ ]+([^\s]+)\s*$/i.exec(header);
  return match?.[1];
}
