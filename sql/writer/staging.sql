-- The event writer's session staging tables. Store.EventWriter COPYs a whole batch (the units
-- of many requests) into them, then calls pushledger_apply_staged() (sql/writer/apply.sql).
--
-- Found by `make bench` (README "Performance"): no index on stage_fresh (rebuilding it at each
-- commit updated its statistics and invalidated every cached plan joining it), no TOAST (the
-- shapes in the baseline), statistics only when a batch outgrows them (ANALYZE in every
-- transaction re-planned the ~20 statements of pushledger_apply_staged each batch).

-- Creates this session's staging tables (once per connection; rows vanish at commit), without
-- TOAST; p_toast: with TOAST, replacing TOAST-less ones (a batch held a row over a page).
create or replace function pushledger_create_staging(p_toast boolean default false)
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
        create temp table stage_telemetry (like pushledger_stage_telemetry_shape including storage)
            on commit delete rows;
        create temp table stage_channels (like pushledger_stage_channels_shape including storage) on commit delete rows;
        create temp table stage_sends (like pushledger_stage_sends_shape including storage) on commit delete rows;
    end if;
    if to_regclass('pg_temp.stage_fresh') is null then
        create temp table stage_fresh (seq integer not null, unit integer not null) on commit delete rows;
    end if;
end
$$;

-- Analyzes each staging table whose rows outnumber twice its last statistics, with static
-- statements: their plans are cached, where EXECUTE planned them in every batch. The writer
-- passes the row counts it copied (null: counted here).
drop function if exists pushledger_analyze_staging();
create or replace function pushledger_analyze_staging(p_telemetry bigint default null, p_sends bigint default null)
returns void
language plpgsql as $$
begin
    if coalesce(p_telemetry, (select count(*) from stage_telemetry))
       > 2 * greatest(0, (select reltuples from pg_class where oid = 'pg_temp.stage_telemetry'::regclass)) then
        analyze pg_temp.stage_telemetry;
    end if;
    if coalesce(p_sends, (select count(*) from stage_sends))
       > 2 * greatest(0, (select reltuples from pg_class where oid = 'pg_temp.stage_sends'::regclass)) then
        analyze pg_temp.stage_sends;
    end if;
end
$$;
