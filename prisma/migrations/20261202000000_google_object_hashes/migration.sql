-- What each Google Wallet class and object was last written with (src/delivery/googleSync.ts): the
-- body's SHA-256 (and, for objects, the pass values' SHA-256 and the design version), so that a
-- body that renders the same is not sent again and a redesign reaches only what it changes. Null
-- for what was written before: rewritten once by the google-object-rewrite job.
ALTER TABLE "google_wallet_classes" ADD COLUMN     "body_hash" CHAR(64);

ALTER TABLE "google_wallet_objects" ADD COLUMN     "body_hash" CHAR(64),
ADD COLUMN     "data_hash" CHAR(64),
ADD COLUMN     "design_version" INTEGER;
