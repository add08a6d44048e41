-- The two queues' arrays (derived_inputs: a batch's events for the background applier;
-- rollup_inputs: a batch's keys and times for the next refresh) are read once, soon after they
-- are written, and most are over the 2 kB at which Postgres compresses a value. pglz, the
-- default, spent about 2 % of the writers' Postgres time compressing them; lz4 compresses them
-- as small (the same WAL a phone-sized event) for a fraction of that. Stored uncompressed
-- they cost 4–5 % more WAL an event. Needs a server built with lz4, as Debian's is.
alter table derived_inputs
    alter column telemetry set compression lz4,
    alter column registrations set compression lz4;
alter table rollup_inputs
    alter column keys set compression lz4,
    alter column times set compression lz4,
    alter column providers set compression lz4;
