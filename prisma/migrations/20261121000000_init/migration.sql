-- CreateEnum
CREATE TYPE "consent_kind" AS ENUM ('ACCOUNT', 'PAYMENT', 'VRP_SWEEPING');

-- CreateEnum
CREATE TYPE "consent_flow" AS ENUM ('REDIRECT', 'EMBEDDED');

-- CreateEnum
CREATE TYPE "account_sync_status" AS ENUM ('PENDING', 'SYNCING', 'SYNCED', 'FAILED', 'STOPPED');

-- CreateEnum
CREATE TYPE "sync_run_status" AS ENUM ('QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED');

-- CreateEnum
CREATE TYPE "sync_trigger" AS ENUM ('INITIAL', 'SCHEDULED', 'MANUAL');

-- CreateEnum
CREATE TYPE "inbound_event_status" AS ENUM ('RECEIVED', 'PROCESSED', 'FAILED');

-- CreateEnum
CREATE TYPE "delivery_status" AS ENUM ('PENDING', 'SUCCEEDED', 'FAILED');

-- CreateEnum
CREATE TYPE "payment_kind" AS ENUM ('SINGLE', 'VRP');

-- CreateEnum
CREATE TYPE "merchant_event_type" AS ENUM ('consent.authorized', 'consent.failed', 'consent.expiring', 'consent.reauthorisation_required', 'consent.expired', 'consent.revoked', 'sync.succeeded', 'sync.failed', 'transactions.changed', 'payment.completed', 'payment.failed');

-- CreateTable
CREATE TABLE "merchants" (
    "id" UUID NOT NULL,
    "name" VARCHAR(255) NOT NULL,
    "sub_application_id" VARCHAR(255),
    "sub_application_name" VARCHAR(255),
    "frontend_origins" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "disabled_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "merchants_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "prefix" VARCHAR(32) NOT NULL,
    "key_hash" VARCHAR(255) NOT NULL,
    "name" VARCHAR(255),
    "last_used_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "users" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "reference" VARCHAR(255) NOT NULL,
    "application_user_id" VARCHAR(255) NOT NULL,
    "upstream_user_uuid" VARCHAR(255),
    "vop_opt_out" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "institutions" (
    "id" VARCHAR(255) NOT NULL,
    "name" VARCHAR(255) NOT NULL,
    "full_name" VARCHAR(255),
    "countries" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "features" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "environment_type" VARCHAR(64),
    "credentials_type" VARCHAR(64),
    "raw" JSONB NOT NULL,
    "refreshed_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "institutions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "consents" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "kind" "consent_kind" NOT NULL,
    "flow" "consent_flow" NOT NULL DEFAULT 'REDIRECT',
    "upstream_consent_id" VARCHAR(255) NOT NULL,
    "institution_consent_id" VARCHAR(255),
    "institution_id" VARCHAR(255) NOT NULL,
    "status" VARCHAR(64) NOT NULL,
    "feature_scope" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "expires_at" TIMESTAMPTZ(3),
    "authorized_at" TIMESTAMPTZ(3),
    "transactions_from" TIMESTAMPTZ(3),
    "transactions_to" TIMESTAMPTZ(3),
    "authorisation_url" TEXT,
    "redirect_url" TEXT,
    "state_nonce" VARCHAR(64),
    "reauthorisation_url" TEXT,
    "reauthorisation_requested_at" TIMESTAMPTZ(3),
    "expiring_notified_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "last_error_code" VARCHAR(64),
    "last_error_message" TEXT,
    "token_ciphertext" TEXT,
    "token_key_id" VARCHAR(32),
    "vrp_control_parameters" JSONB,
    "vrp_initiation_details" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "consents_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "accounts" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "consent_id" UUID NOT NULL,
    "upstream_account_id" VARCHAR(255) NOT NULL,
    "institution_id" VARCHAR(255) NOT NULL,
    "type" VARCHAR(64),
    "usage_type" VARCHAR(64),
    "currency" VARCHAR(3),
    "nickname" VARCHAR(255),
    "description" TEXT,
    "details" TEXT,
    "account_names" JSONB,
    "account_identifications" JSONB,
    "raw" JSONB,
    "sync_status" "account_sync_status" NOT NULL DEFAULT 'PENDING',
    "last_synced_at" TIMESTAMPTZ(3),
    "next_sync_at" TIMESTAMPTZ(3),
    "last_sync_error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "accounts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "account_balances" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "type" VARCHAR(64) NOT NULL,
    "amount" DECIMAL(19,4) NOT NULL,
    "currency" VARCHAR(3) NOT NULL,
    "date_time" TIMESTAMPTZ(3),
    "credit_line_included" BOOLEAN,
    "credit_lines" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "account_balances_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "transactions" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "dedupe_key" VARCHAR(255) NOT NULL,
    "date" TIMESTAMPTZ(3) NOT NULL,
    "booking_date_time" TIMESTAMPTZ(3),
    "value_date_time" TIMESTAMPTZ(3),
    "status" VARCHAR(64) NOT NULL,
    "amount" DECIMAL(19,4) NOT NULL,
    "currency" VARCHAR(3) NOT NULL,
    "description" TEXT,
    "reference" TEXT,
    "raw" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "transactions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sync_runs" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "active_account_id" UUID,
    "status" "sync_run_status" NOT NULL DEFAULT 'QUEUED',
    "trigger" "sync_trigger" NOT NULL,
    "job_id" VARCHAR(255),
    "pages" INTEGER NOT NULL DEFAULT 0,
    "fetched" INTEGER NOT NULL DEFAULT 0,
    "inserted" INTEGER NOT NULL DEFAULT 0,
    "updated" INTEGER NOT NULL DEFAULT 0,
    "unchanged" INTEGER NOT NULL DEFAULT 0,
    "checkpoint" JSONB,
    "error_code" VARCHAR(64),
    "error_message" TEXT,
    "error_details" JSONB,
    "queued_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "sync_runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "payments" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "consent_id" UUID NOT NULL,
    "kind" "payment_kind" NOT NULL,
    "upstream_payment_id" VARCHAR(255),
    "payment_idempotency_id" VARCHAR(35) NOT NULL,
    "payment_type" VARCHAR(64),
    "status" VARCHAR(64) NOT NULL,
    "status_details" JSONB,
    "amount" DECIMAL(19,4) NOT NULL,
    "currency" VARCHAR(3) NOT NULL,
    "reference" VARCHAR(255),
    "payee" JSONB NOT NULL,
    "payer" JSONB,
    "raw" JSONB,
    "status_updated_at" TIMESTAMPTZ(3),
    "next_status_check_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "payments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "merchant_events" (
    "id" UUID NOT NULL,
    "seq" BIGSERIAL NOT NULL,
    "merchant_id" UUID NOT NULL,
    "user_id" UUID,
    "type" "merchant_event_type" NOT NULL,
    "data" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "merchant_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "event_endpoints" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "url" TEXT NOT NULL,
    "types" "merchant_event_type"[] DEFAULT ARRAY[]::"merchant_event_type"[],
    "secret_ciphertext" TEXT NOT NULL,
    "secret_key_id" VARCHAR(32) NOT NULL,
    "disabled_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "event_endpoints_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "event_deliveries" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "endpoint_id" UUID NOT NULL,
    "event_id" UUID NOT NULL,
    "status" "delivery_status" NOT NULL DEFAULT 'PENDING',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3),
    "last_attempt_at" TIMESTAMPTZ(3),
    "last_response_status" INTEGER,
    "last_error" TEXT,
    "delivered_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "event_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "inbound_events" (
    "id" UUID NOT NULL,
    "source" VARCHAR(32) NOT NULL DEFAULT 'upstream',
    "event_id" VARCHAR(255) NOT NULL,
    "type" VARCHAR(128),
    "application_id" VARCHAR(255),
    "merchant_id" UUID,
    "payload" JSONB NOT NULL,
    "status" "inbound_event_status" NOT NULL DEFAULT 'RECEIVED',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_error" TEXT,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "processed_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "inbound_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "upstream_webhooks" (
    "id" UUID NOT NULL,
    "application_id" VARCHAR(255) NOT NULL,
    "merchant_id" UUID,
    "upstream_webhook_id" VARCHAR(255),
    "categories" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "callback_url" TEXT NOT NULL,
    "secret_ciphertext" TEXT NOT NULL,
    "secret_key_id" VARCHAR(32) NOT NULL,
    "status" VARCHAR(32),
    "retired_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "upstream_webhooks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "idempotency_keys" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "key" VARCHAR(255) NOT NULL,
    "method" VARCHAR(10) NOT NULL,
    "path" TEXT NOT NULL,
    "request_hash" VARCHAR(64) NOT NULL,
    "response_status" INTEGER,
    "response_body" JSONB,
    "locked_at" TIMESTAMPTZ(3),
    "completed_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "merchants_sub_application_id_key" ON "merchants"("sub_application_id");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_prefix_key" ON "api_keys"("prefix");

-- CreateIndex
CREATE INDEX "api_keys_merchant_id_created_at_idx" ON "api_keys"("merchant_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "users_upstream_user_uuid_key" ON "users"("upstream_user_uuid");

-- CreateIndex
CREATE UNIQUE INDEX "users_merchant_id_reference_key" ON "users"("merchant_id", "reference");

-- CreateIndex
CREATE UNIQUE INDEX "users_merchant_id_application_user_id_key" ON "users"("merchant_id", "application_user_id");

-- CreateIndex
CREATE INDEX "institutions_countries_idx" ON "institutions" USING GIN ("countries");

-- CreateIndex
CREATE UNIQUE INDEX "consents_state_nonce_key" ON "consents"("state_nonce");

-- CreateIndex
CREATE INDEX "consents_user_id_created_at_idx" ON "consents"("user_id", "created_at");

-- CreateIndex
CREATE INDEX "consents_status_expires_at_idx" ON "consents"("status", "expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "consents_upstream_consent_id_merchant_id_key" ON "consents"("upstream_consent_id", "merchant_id");

-- CreateIndex
CREATE INDEX "accounts_user_id_idx" ON "accounts"("user_id");

-- CreateIndex
CREATE INDEX "accounts_next_sync_at_id_idx" ON "accounts"("next_sync_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "accounts_consent_id_upstream_account_id_key" ON "accounts"("consent_id", "upstream_account_id");

-- CreateIndex
CREATE UNIQUE INDEX "account_balances_account_id_type_key" ON "account_balances"("account_id", "type");

-- CreateIndex
CREATE INDEX "transactions_account_id_date_id_idx" ON "transactions"("account_id", "date" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "transactions_account_id_status_date_id_idx" ON "transactions"("account_id", "status", "date" DESC, "id" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "transactions_account_id_dedupe_key_key" ON "transactions"("account_id", "dedupe_key");

-- CreateIndex
CREATE UNIQUE INDEX "sync_runs_active_account_id_key" ON "sync_runs"("active_account_id");

-- CreateIndex
CREATE INDEX "sync_runs_account_id_queued_at_idx" ON "sync_runs"("account_id", "queued_at" DESC);

-- CreateIndex
CREATE INDEX "sync_runs_status_updated_at_idx" ON "sync_runs"("status", "updated_at");

-- CreateIndex
CREATE UNIQUE INDEX "payments_payment_idempotency_id_key" ON "payments"("payment_idempotency_id");

-- CreateIndex
CREATE INDEX "payments_consent_id_created_at_idx" ON "payments"("consent_id", "created_at");

-- CreateIndex
CREATE INDEX "payments_next_status_check_at_idx" ON "payments"("next_status_check_at");

-- CreateIndex
CREATE UNIQUE INDEX "payments_upstream_payment_id_merchant_id_key" ON "payments"("upstream_payment_id", "merchant_id");

-- CreateIndex
CREATE INDEX "merchant_events_user_id_seq_idx" ON "merchant_events"("user_id", "seq");

-- CreateIndex
CREATE INDEX "merchant_events_created_at_idx" ON "merchant_events"("created_at");

-- CreateIndex
CREATE INDEX "event_endpoints_merchant_id_created_at_idx" ON "event_endpoints"("merchant_id", "created_at");

-- CreateIndex
CREATE INDEX "event_deliveries_status_next_attempt_at_idx" ON "event_deliveries"("status", "next_attempt_at");

-- CreateIndex
CREATE INDEX "event_deliveries_event_id_idx" ON "event_deliveries"("event_id");

-- CreateIndex
CREATE UNIQUE INDEX "event_deliveries_endpoint_id_event_id_key" ON "event_deliveries"("endpoint_id", "event_id");

-- CreateIndex
CREATE INDEX "inbound_events_status_received_at_idx" ON "inbound_events"("status", "received_at");

-- CreateIndex
CREATE UNIQUE INDEX "inbound_events_source_event_id_key" ON "inbound_events"("source", "event_id");

-- CreateIndex
CREATE UNIQUE INDEX "upstream_webhooks_upstream_webhook_id_key" ON "upstream_webhooks"("upstream_webhook_id");

-- CreateIndex
CREATE INDEX "upstream_webhooks_application_id_retired_at_idx" ON "upstream_webhooks"("application_id", "retired_at");

-- CreateIndex
CREATE INDEX "idempotency_keys_expires_at_idx" ON "idempotency_keys"("expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "idempotency_keys_merchant_id_key_key" ON "idempotency_keys"("merchant_id", "key");

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "users" ADD CONSTRAINT "users_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "consents" ADD CONSTRAINT "consents_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "consents" ADD CONSTRAINT "consents_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_consent_id_fkey" FOREIGN KEY ("consent_id") REFERENCES "consents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "account_balances" ADD CONSTRAINT "account_balances_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "account_balances" ADD CONSTRAINT "account_balances_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "transactions" ADD CONSTRAINT "transactions_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "transactions" ADD CONSTRAINT "transactions_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sync_runs" ADD CONSTRAINT "sync_runs_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sync_runs" ADD CONSTRAINT "sync_runs_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "payments" ADD CONSTRAINT "payments_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "payments" ADD CONSTRAINT "payments_consent_id_fkey" FOREIGN KEY ("consent_id") REFERENCES "consents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "merchant_events" ADD CONSTRAINT "merchant_events_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "merchant_events" ADD CONSTRAINT "merchant_events_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "event_endpoints" ADD CONSTRAINT "event_endpoints_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "event_deliveries" ADD CONSTRAINT "event_deliveries_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "event_deliveries" ADD CONSTRAINT "event_deliveries_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "event_endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "event_deliveries" ADD CONSTRAINT "event_deliveries_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "merchant_events"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "inbound_events" ADD CONSTRAINT "inbound_events_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "upstream_webhooks" ADD CONSTRAINT "upstream_webhooks_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

