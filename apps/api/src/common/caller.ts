import type { Principal } from '#libs/http';

/** A merchant key acts for any of its users; a session only for its own user (the services enforce it). */
export const callerOf = (p: Principal) => ({ merchantId: p.merchantId!, userId: p.userId });
