import { Injectable } from '@nestjs/common';
import type { MerchantId } from '#libs/context';
import { type Prisma, PrismaService } from '#libs/database';

const FIELDS = {
  id: true,
  merchantId: true,
  userId: true,
  institutionId: true,
  controlParameters: true,
  initiationDetails: true,
  consentId: true,
} as const;

export type StoredHostedVrpRequest = Prisma.HostedVrpRequestGetPayload<{ select: typeof FIELDS }>;

/** The hosted VRP requests merchants made through us: the owner of hosted_vrp_requests. */
@Injectable()
export class HostedVrpRequestRepository {
  constructor(private readonly prisma: PrismaService) {}

  async create(
    merchantId: MerchantId,
    data: {
      id: string;
      userId: string;
      institutionId: string;
      controlParameters: Prisma.InputJsonValue;
      initiationDetails: Prisma.InputJsonValue;
    },
  ): Promise<void> {
    await this.prisma.hostedVrpRequest.create({ data: { ...data, merchantId } });
  }

  /** The merchant's request (and, for a user session, that user's only); null for anyone else's. */
  find(merchantId: MerchantId, requestId: string, userId?: string): Promise<StoredHostedVrpRequest | null> {
    return this.prisma.hostedVrpRequest.findFirst({
      where: { id: requestId, merchantId, ...(userId ? { userId } : {}) },
      select: FIELDS,
    });
  }

  /** Records the consent the request became; the first to record it wins (the consent is the same one). */
  async linkConsent(merchantId: MerchantId, requestId: string, consentId: string): Promise<void> {
    await this.prisma.hostedVrpRequest.updateMany({
      where: { id: requestId, merchantId, consentId: null },
      data: { consentId },
    });
  }
}
