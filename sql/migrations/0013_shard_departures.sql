-- Apps moved away from this database (`pushledger apps move`): an ingestor with an old shard
-- map that tries to write such an app here is refused and looks the app up again, so nothing
-- of it is stored on a shard that no longer owns it.
create table shard_departures (
    app_id   text        primary key,
    moved_to text        not null,
    moved_at timestamptz not null default now()
);
grant select on shard_departures to pushledger_reader;
