-- The two queues' arrays (derived_inputs: a batch's events for the background applier;
-- rollup_inputs: a batch's keys and times for the next refresh) are read once, soon after they
-- are written, and most are over the 2 kB at which Postgres compresses a value. pglz spent
-- about 2 % of the writers' Postgres time compressing them and the readers decompressing them,
-- for random ids that hardly compress: they are now stored out of line as they are.
alter table derived_inputs
    alter column telemetry set storage external,
    alter column registrations set storage external;
alter table rollup_inputs
    alter column keys set storage external,
    alter column times set storage external,
    alter column providers set storage external;
