-- AlterEnum
ALTER TYPE "merchant_event_type" ADD VALUE 'payment.held_for_review';
