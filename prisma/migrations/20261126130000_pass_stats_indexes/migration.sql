-- CreateIndex
CREATE INDEX "passes_account_id_added_at_device_type_idx" ON "passes"("account_id", "added_at", "device_type");

-- CreateIndex
CREATE INDEX "passes_account_id_removed_at_idx" ON "passes"("account_id", "removed_at");
