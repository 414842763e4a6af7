-- The most spectators each room had at once (0: nobody watched).
ALTER TABLE rooms ADD COLUMN watchers BIGINT NOT NULL DEFAULT 0;
