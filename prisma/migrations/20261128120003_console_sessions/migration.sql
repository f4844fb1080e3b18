-- Console sessions stored, so a sign-out ends the session on the server: a copy of the cookie taken
-- before it stops working on every api process at once (issue 59).
-- CreateTable
CREATE TABLE "console_sessions" (
    "id" UUID NOT NULL,
    "api_key_id" UUID,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "ended_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "console_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "console_sessions_expires_at_idx" ON "console_sessions"("expires_at");

-- CreateIndex
CREATE INDEX "console_sessions_api_key_id_idx" ON "console_sessions"("api_key_id");

-- AddForeignKey
ALTER TABLE "console_sessions" ADD CONSTRAINT "console_sessions_api_key_id_fkey" FOREIGN KEY ("api_key_id") REFERENCES "api_keys"("id") ON DELETE CASCADE ON UPDATE CASCADE;
