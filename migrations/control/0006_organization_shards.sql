-- The data-plane shard of each organization within its region (DESIGN.md section 1): the regional
-- Worker serves a request from the D1 the signed actor context names. Every organization before
-- shards existed lives in the region's first shard.
ALTER TABLE organizations ADD COLUMN shard INTEGER NOT NULL DEFAULT 1;
