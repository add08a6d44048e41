-- How fresh the rollups are (docs/rollups.md "Following"): read by every report that reads
-- rollups, by `pushledger rollup --follow` for its metrics, and by monitoring as the read-only
-- role pushledger_reader.

-- Records how long the refresh of the current transaction took (called last, just before
-- commit, by every refresh: `pushledger rollup`, with or without --follow).
-- Reads nothing; writes rollup_refresh_state.
create or replace function pushledger_record_rollup_pass()
returns void
language sql as $$
    update rollup_refresh_state
       set pass_started_at = now(), pass_seconds = extract(epoch from clock_timestamp() - now())
$$;

-- The last completed refresh and what waits for the next one.
--   as_of, refreshed_at: the last completed refresh (both null: never refreshed);
--   pending_inputs: queued input statements, whole days marked dirty and batches' derived state
--     waiting (derived_inputs: a pass applies it first);
--   oldest_pending_at: since when the oldest committed input not yet rolled up could have been
--     (its transaction's start, or the time it is dated at when that is later: an input dated
--     ahead of the clock waits for its time); null: nothing waits;
--   lag_seconds: its age (0: caught up), what the freshness target bounds;
--   last_pass_seconds: how long the last refresh's transaction ran.
-- security definer: the readers' role may count the queues without reading them. PL/pgSQL, so
-- its plans are cached, and each queue read once: the follower looks every eighth of a second
-- while ingest fills the queue (as a SQL function reading rollup_inputs twice it took ~6 ms a
-- look at 5,000 queued inputs, against ~3 now).
-- Reads rollup_inputs, rollup_dirty_days, prompt_rollup_dirty_installations, derived_inputs,
-- rollup_refresh_state; writes nothing.
drop function if exists pushledger_rollup_status();
create function pushledger_rollup_status()
returns table (as_of timestamptz, refreshed_at timestamptz, pending_inputs bigint, oldest_pending_at timestamptz,
               lag_seconds double precision, last_pass_seconds double precision)
language plpgsql stable security definer set search_path = public, pg_temp as $$
declare
    v_inputs bigint;
    v_days bigint;
    v_oldest timestamptz;
    v_days_oldest timestamptz;
    v_members_oldest timestamptz;
    v_derived bigint;
    v_derived_oldest timestamptz;
begin
    select count(*), min(greatest(i.queued_at, i.due_at)) filter (where i.due_at <= now())
      into v_inputs, v_oldest from rollup_inputs i;
    select count(*), min(d.marked_at) into v_days, v_days_oldest from rollup_dirty_days d;
    select min(greatest(m.marked_at, m.due_at)) into v_members_oldest
      from prompt_rollup_dirty_installations m where m.due_at <= now();
    select count(*), min(x.queued_at) into v_derived, v_derived_oldest from derived_inputs x;
    -- least() skips nulls: null only when nothing waits.
    v_oldest := least(v_oldest, v_days_oldest, v_members_oldest, v_derived_oldest);
    return query
    select s.as_of, s.refreshed_at, v_inputs + v_days + v_derived, v_oldest,
           coalesce(greatest(extract(epoch from now() - v_oldest), 0), 0)::double precision, s.pass_seconds
      from (select 1) one left join rollup_refresh_state s on true;
end
$$;

-- The channel on which writers announce that ingest went idle (their queue stayed empty):
-- `pushledger rollup --follow` listens on it and starts its pass at once when inputs wait and
-- no other transaction writes, instead of waiting out its settle interval (docs/rollups.md
-- "Following").
-- Reads nothing; writes nothing.
create or replace function pushledger_ingest_idle_channel()
returns text
language sql immutable as $$ select 'pushledger_ingest_idle'::text $$;

-- Announces it: the followers hear it as the caller's transaction commits.
-- Reads nothing; writes nothing (a notification).
create or replace function pushledger_announce_ingest_idle()
returns void
language sql as $$ select pg_notify(pushledger_ingest_idle_channel(), '') $$;
