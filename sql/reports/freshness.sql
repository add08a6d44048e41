-- How fresh the rollups are, for every report that reads them: as of when they classify
-- (as_of), when that refresh ran (refreshed_at; both null: never refreshed) and how many input
-- changes wait for the next `pushledger rollup` (pending_inputs: the dirty-day marks).
-- One scan of the rollups (a refresh log would make it a look-up). security definer: the
-- readers' role (pushledger_reader) may count the marks without reading them.
create or replace function pushledger_rollup_status()
returns table (as_of timestamptz, refreshed_at timestamptz, pending_inputs bigint)
language sql stable security definer set search_path = public, pg_temp as $$
select max(r.as_of), max(r.refreshed_at), (select count(*) from rollup_dirty_days)
  from send_rollups_daily r
$$;
