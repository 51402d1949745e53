-- CreateTable
CREATE TABLE "rate_limits" (
    "key" VARCHAR(255) NOT NULL,
    "points" INTEGER NOT NULL DEFAULT 0,
    "expire" BIGINT,

    CONSTRAINT "rate_limits_pkey" PRIMARY KEY ("key")
);


-- Hand-written: counters live for a second or a minute, so they skip the write-ahead log (a crash
-- empties the table, which only resets the windows in progress).
ALTER TABLE "rate_limits" SET UNLOGGED;
