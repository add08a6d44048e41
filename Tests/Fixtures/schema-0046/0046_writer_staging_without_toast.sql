-- Writer: staging tables without TOAST (found by `make bench`, see README "Performance").
-- ON COMMIT DELETE ROWS truncates every staging table at each commit, and with it each one's
-- TOAST table, rebuilding that TOAST table's index: perf put the truncation at ~8 % of the
-- Postgres CPU of an ingested event at 32 connections, half of it the TOAST index builds.
-- A table whose variable-length columns are all STORAGE PLAIN gets no TOAST table, and
-- CREATE TABLE takes a column's storage only through LIKE ... INCLUDING STORAGE, hence the
-- empty shape tables below: the columns of 0041's staging tables, copied from them.
--
-- A PLAIN row must fit in a page (~8 kB). Events may reach 32 KiB, so a batch with a bigger
-- row fails its COPY with 54000 ("row is too big"); the writer then retries the batch once
-- with pushledger_create_staging(true), which swaps this session's staging tables for ones
-- with TOAST, kept until the connection closes.

select pushledger_create_staging();  -- 0041: creates them in this session
create table pushledger_stage_telemetry_shape (like pg_temp.stage_telemetry);
create table pushledger_stage_channels_shape (like pg_temp.stage_channels);
create table pushledger_stage_sends_shape (like pg_temp.stage_sends);
drop table pg_temp.stage_telemetry, pg_temp.stage_channels, pg_temp.stage_sends, pg_temp.stage_fresh;

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

drop function pushledger_create_staging();

-- Creates this session's staging tables (once per connection; rows vanish at commit), without
-- TOAST; p_toast: with TOAST, replacing TOAST-less ones (a batch held a row over a page).
create function pushledger_create_staging(p_toast boolean default false)
returns void
language plpgsql as $$
declare
    v_has_toast boolean;
begin
    select c.reltoastrelid <> 0 into v_has_toast
      from pg_class c where c.oid = to_regclass('pg_temp.stage_telemetry');
    if v_has_toast is not null then
        if v_has_toast or not p_toast then
            return;
        end if;
        drop table pg_temp.stage_telemetry, pg_temp.stage_channels, pg_temp.stage_sends;
    end if;
    if p_toast then
        create temp table stage_telemetry (like pushledger_stage_telemetry_shape) on commit delete rows;
        create temp table stage_channels (like pushledger_stage_channels_shape) on commit delete rows;
        create temp table stage_sends (like pushledger_stage_sends_shape) on commit delete rows;
    else
        create temp table stage_telemetry (like pushledger_stage_telemetry_shape including storage) on commit delete rows;
        create temp table stage_channels (like pushledger_stage_channels_shape including storage) on commit delete rows;
        create temp table stage_sends (like pushledger_stage_sends_shape including storage) on commit delete rows;
    end if;
    if to_regclass('pg_temp.stage_fresh') is null then
        create temp table stage_fresh (seq integer not null, unit integer not null) on commit delete rows;
    end if;
end
$$;
