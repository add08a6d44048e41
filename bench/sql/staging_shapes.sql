-- The writer's staging templates as the schema had them until a batch went to Postgres as
-- arrays (sql/migrations/0021_batch_rows.sql dropped them), for a baseline build that still
-- stages: `make bench` applies this to the baseline's copy of the database before its writer
-- files. The columns are those of the batch's row types; every variable-length one is
-- STORAGE PLAIN, as it was, so the baseline's staging tables have no TOAST.
create table if not exists pushledger_stage_telemetry_shape (like pushledger_batch_telemetry);
create table if not exists pushledger_stage_channels_shape (like pushledger_batch_channel);
create table if not exists pushledger_stage_sends_shape (like pushledger_batch_send);
do $$
declare
    v_column record;
begin
    for v_column in
        select a.attrelid::regclass as shape, a.attname
          from pg_attribute a
         where a.attrelid in ('pushledger_stage_telemetry_shape'::regclass, 'pushledger_stage_channels_shape'::regclass,
                              'pushledger_stage_sends_shape'::regclass)
           and a.attnum > 0 and a.attlen = -1
    loop
        execute format('alter table %s alter column %I set storage plain', v_column.shape, v_column.attname);
    end loop;
end
$$;
