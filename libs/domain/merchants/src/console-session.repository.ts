import { Injectable } from '@nestjs/common';
import { PrismaService } from '#libs/database';
import { isUuid } from '#libs/ids';

/** How long an expired or ended session's row stays (for an operator asking about a sign-in), in ms. */
const KEPT_AFTER_EXPIRY_MS = 86_400_000;

/**
 * The web console's sessions (`console_sessions`), owned here: started by a sign-in, ended by a sign-out,
 * deleted by the retention sweep. A session's credential (its API key, or the operator token) is judged
 * elsewhere; this says only whether the session itself still stands.
 */
@Injectable()
export class ConsoleSessionRepository {
  constructor(private readonly prisma: PrismaService) {}

  async start(session: { id: string; apiKeyId: string | null; expiresAt: Date }): Promise<void> {
    await this.prisma.consoleSession.create({ data: session });
  }

  /** Whether the session is neither ended nor expired. */
  async isActive(id: string, now = new Date()): Promise<boolean> {
    if (!isUuid(id)) return false;
    const row = await this.prisma.consoleSession.findFirst({
      where: { id, endedAt: null, expiresAt: { gt: now } },
      select: { id: true },
    });
    return row !== null;
  }

  /** Ends the session; ending one already ended, expired or unknown changes nothing. */
  async end(id: string, now = new Date()): Promise<void> {
    if (!isUuid(id)) return;
    await this.prisma.consoleSession.updateMany({ where: { id, endedAt: null }, data: { endedAt: now } });
  }

  /** Deletes the sessions that expired over a day ago; how many. */
  async pruneExpired(now = new Date()): Promise<number> {
    const { count } = await this.prisma.consoleSession.deleteMany({
      where: { expiresAt: { lt: new Date(now.getTime() - KEPT_AFTER_EXPIRY_MS) } },
    });
    return count;
  }
}
