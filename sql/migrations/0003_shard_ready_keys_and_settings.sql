-- Every primary key and unique index of an app-scoped table includes app_id, the column the
-- schema is distributed by on Citus (a distributed table's unique constraints must contain its
-- distribution column). alert_transitions was the one exception: its serial id alone.
-- The id stays unique on its own (one sequence); the key only adds app_id in front.
alter table alert_transitions drop constraint alert_transitions_pkey;
alter table alert_transitions add primary key (app_id, id);

-- Deployment settings, one row: read by the partition functions (sql/partitions/partitions.sql).
-- partition_granularity: the range of each new partition of the time-partitioned tables:
-- 'monthly' (the default), or 'daily' for deployments whose month would hold billions of rows
-- (a partition per day keeps each one's indexes in memory while it is written and lets
-- retention drop a day at a time). Changing it affects partitions created from then on; the
-- existing ones stay as they are (`pushledger partitions --granularity`).
create table pushledger_settings (
    singleton             boolean primary key default true check (singleton),
    partition_granularity text    not null default 'monthly' check (partition_granularity in ('monthly', 'daily'))
);
insert into pushledger_settings default values;
grant select on pushledger_settings to pushledger_reader;
