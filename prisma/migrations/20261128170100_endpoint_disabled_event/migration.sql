-- AlterEnum
ALTER TYPE "merchant_event_type" ADD VALUE 'endpoint.disabled';
