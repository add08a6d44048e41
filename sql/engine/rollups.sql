-- Daily send rollups (docs/rollups.md): the refresh and the rebuild, each a sequence of named
-- steps that pass rows through the working tables of sql/engine/work_tables.sql. A rollup row
-- is the classification of one UTC day's sends with that day as the report window, evaluated
-- as of the last refresh. send_outcomes keeps every send's facts and outcome; the rollups are
-- always the grouping of its rows.
--
-- A refresh (pushledger_refresh_rollups) takes what the writers queued since the last one
-- (sql/engine/dirty_days.sql), finds by index the sends it affects (sql/engine/refresh_inputs.sql),
-- classifies only those (sql/engine/classify.sql), replaces their send_outcomes rows
-- (sql/engine/send_outcomes.sql) and moves the rollups by the difference between their old and
-- new rows (sql/engine/send_rollups.sql); whole days marked dirty go through the set-based
-- engine. A rebuild (pushledger_rebuild_rollups) classifies everything in one set-based pass
-- and aggregates. Rows keep `unattributed_uninstrumented` and instrumented_slices_daily so a
-- wider window re-judges instrumentation exactly (pushledger_rollup_totals, sql/reports/weekly.sql).

drop function if exists pushledger_rollup_day(text, date, timestamptz, interval);
drop function if exists pushledger_rollup_days(text, date, date, timestamptz, interval);

-- The (app, day) pairs as runs of consecutive days of an app, each at most 7 days long: a
-- run is classified in one pass (the snapshots before it are looked up once per installation,
-- not once per day).
-- Reads nothing; writes nothing.
create or replace function pushledger_day_runs(p_apps text[], p_days date[])
returns table (app_id text, first_day date, last_day date)
language sql immutable as $$
select r.app_id, min(r.day), max(r.day)
  from (select d.app_id, d.day,
               -- Consecutive days share an island; islands are cut every 7 days.
               d.day - (row_number() over w)::integer as island,
               (row_number() over w - 1) / 7 as chunk
          from (select distinct u.app_id, u.day from unnest(p_apps, p_days) u(app_id, day)) d
        window w as (partition by d.app_id order by d.day)) r
 group by r.app_id, r.island, r.chunk
 order by 1, 2
$$;

-- The notifications whose landing rows (sql/engine/landings.sql) a refresh recomputes: those
-- with an open taken (stored or removed), and those of every send whose row changed (a row
-- holds the attempt's time, day, channel and campaign: a landing row moves only when one of its
-- notification's rows does); then recomputes them.
-- Reads rollup_taken, rollup_delta; writes landing_notifications (sql/engine/work_tables.sql),
-- and through pushledger_refresh_landing_notifications the landing rollups.
create or replace function pushledger_refresh_landings(p_as_of timestamptz)
returns void
language plpgsql as $$
begin
    insert into landing_notifications
    select t.app_id, k.notification_id from rollup_taken t cross join unnest(t.keys) k(notification_id)
        where t.kind = 'open'
    union
    select r.app_id, r.notification_id from rollup_delta r;
    perform pushledger_refresh_landing_notifications(p_as_of, false);
end
$$;

-- Records a completed refresh.
-- Reads nothing; writes rollup_refresh_state.
create or replace function pushledger_record_refresh(p_as_of timestamptz, p_window interval, p_full boolean,
                                                     p_sends bigint)
returns void
language sql as $$
    insert into rollup_refresh_state (as_of, window_length, refreshed_at, full_at, reclassified)
    values (p_as_of, p_window, now(), case when p_full then now() end, p_sends)
    on conflict (singleton) do update set
        as_of = excluded.as_of, window_length = excluded.window_length, refreshed_at = excluded.refreshed_at,
        full_at = coalesce(excluded.full_at, rollup_refresh_state.full_at), reclassified = excluded.reclassified
$$;

-- Recomputes everything from scratch as of p_as_of: every send of every app classified in one
-- set-based pass (runs of 7 days), send_outcomes and the rollups rewritten from it. For
-- repairs and definition changes, and the first refresh of a database. Returns every (app, day)
-- with rollups.
-- Reads rollup_inputs, rollup_dirty_days (taken: a rebuild applies them all), notification_receipts,
-- and every input of the engine; writes send_outcomes, instrumented_slices_daily,
-- send_rollups_daily, send_rejections_daily, the landing rollups, rollup_refresh_state.
create or replace function pushledger_rebuild_rollups(
    p_as_of timestamptz default now(), p_window interval default '24 hours')
returns table (refreshed_app text, refreshed_day date)
language plpgsql as $$
declare
    v_sends bigint;
begin
    perform pg_advisory_xact_lock(hashtext('pushledger_refresh_rollups'));
    perform pushledger_rollup_work_tables();
    perform pushledger_take_rollup_inputs(p_as_of);
    delete from send_rollups_daily;
    delete from send_rejections_daily;
    delete from instrumented_slices_daily;
    with background_sends as (
        -- Each notification's latest background push at or before as_of.
        select s.app_id, s.notification_id, max(s.sent_at) as last_sent_at from sends s
         where s.push_type = 'background' and s.sent_at <= p_as_of group by 1, 2
    )
    insert into instrumented_slices_daily (app_id, day, platform, app_version, background)
    select r.app_id, pushledger_day(r.occurred_at), r.platform, r.app_version,
           -- A receipt of a background push (pushledger_background_receipt): its notification's
           -- latest such send is not too old for it.
           coalesce(bool_or(b.last_sent_at >= r.occurred_at - pushledger_confirmation_lookback()), false)
      from notification_receipts r
      left join background_sends b on b.app_id = r.app_id and b.notification_id = r.notification_id
     where r.occurred_at <= p_as_of
     group by 1, 2, 3, 4;
    v_sends := pushledger_load_outcomes(p_as_of, p_window);
    perform pushledger_apply_rollup_deltas(p_as_of, true);
    -- Every day with rollups has its landing rollups computed (open_landings_days).
    insert into rollup_days select distinct r.app_id, r.day from send_rollups_daily r;
    perform pushledger_refresh_landing_notifications(p_as_of, true);
    perform pushledger_record_refresh(p_as_of, p_window, true, v_sends);
    return query
    select r.app_id, r.day from send_rollups_daily r union select sl.app_id, sl.day from instrumented_slices_daily sl
     order by 1, 2;
end
$$;

-- Whether a day on which a refresh judges p_judged sends on every fact, of p_day_sends, goes
-- through the set-based engine whole (pushledger_classify_days, as days marked dirty do): once
-- a third of a day's sends are judged again, one pass over the day's facts costs less than
-- their look-ups one by one (docs/rollups.md "What a refresh reads"). At least
-- pushledger.whole_day_min_sends of them (1,000 unless the session sets it), so a day's few
-- late sends keep their look-ups.
-- Reads nothing; writes nothing.
create or replace function pushledger_busy_day(p_judged bigint, p_day_sends bigint)
returns boolean
language sql stable as $$
    select p_judged >= coalesce(nullif(current_setting('pushledger.whole_day_min_sends', true), '')::bigint, 1000)
       and p_judged * 3 >= p_day_sends
$$;

-- Marks the busy days (pushledger_busy_day) of the sends judged on every fact to be recomputed
-- whole.
-- Reads rollup_send_set, rollup_days (sql/engine/work_tables.sql), sends; writes rollup_days.
create or replace function pushledger_promote_busy_days()
returns void
language plpgsql as $$
begin
    insert into rollup_days
    select a.app_id, a.day
      from (select k.app_id, pushledger_day(k.sent_at) as day, count(distinct k.event_id) as judged
              from rollup_send_set k
             where k.scope = 2
               and not exists (select 1 from rollup_days d
                                where d.app_id = k.app_id and d.day = pushledger_day(k.sent_at))
             group by 1, 2) a
     where pushledger_busy_day(a.judged,
                               (select count(*) from sends s
                                 where s.app_id = a.app_id and s.sent_at >= a.day::timestamp at time zone 'UTC'
                                   and s.sent_at < (a.day + 1)::timestamp at time zone 'UTC'));
end
$$;

-- Brings the rollups up to date as of p_as_of from what arrived since the last refresh (see
-- the top of this file); returns the (app, day)s whose rollups moved, gained an instrumented
-- slice, or were recomputed whole. A refresh as of an earlier time than the last one, with
-- another confirmation window, or on a database never refreshed, rebuilds instead.
-- Takes an advisory lock; an input committed after the refresh took the queue stays queued
-- for the next one (its rows may be seen now too: applying them twice is harmless).
-- Four steps, so that `pushledger rollup` can classify part of the whole days on a second
-- connection while the others run (docs/rollups.md "Two connections").
-- Reads and writes what pushledger_refresh_rollups_begin, pushledger_refresh_rollups_affected,
-- pushledger_classify_whole_days and pushledger_refresh_rollups_end do, or
-- pushledger_rebuild_rollups.
create or replace function pushledger_refresh_rollups(
    p_as_of timestamptz default now(), p_window interval default '24 hours')
returns table (refreshed_app text, refreshed_day date)
language plpgsql as $$
begin
    if not pushledger_refresh_rollups_begin(p_as_of, p_window) then
        return query select * from pushledger_rebuild_rollups(p_as_of, p_window);
        return;
    end if;
    perform pushledger_refresh_rollups_affected(p_as_of, p_window);
    perform pushledger_classify_whole_days(p_as_of, p_window, false);
    return query select * from pushledger_refresh_rollups_end(p_as_of, p_window);
end
$$;

-- The refresh's first step: takes the queue (and the days marked dirty). False, having done
-- nothing but take the lock, when the refresh must rebuild instead (see above). Short, as on
-- two connections the second starts only after it.
-- Reads and writes through its steps (docs/rollups.md draws them): rollup_inputs,
-- rollup_dirty_days, rollup_taken, rollup_days.
create or replace function pushledger_refresh_rollups_begin(p_as_of timestamptz, p_window interval)
returns boolean
language plpgsql as $$
declare
    v_last rollup_refresh_state;
begin
    perform pg_advisory_xact_lock(hashtext('pushledger_refresh_rollups'));
    select * into v_last from rollup_refresh_state;
    if not found or p_as_of < v_last.as_of or p_window <> v_last.window_length then
        return false;
    end if;
    perform pushledger_rollup_work_tables();
    perform pushledger_take_rollup_inputs(p_as_of);
    return true;
end
$$;

-- The refresh's second step: the sends the taken inputs name, the instrumented slices, the
-- days mostly of new sends to be recomputed whole; then what else the inputs affect, and every
-- send judged again outside the whole days classified into rollup_new.
-- Reads and writes through its steps: rollup_taken, rollup_stored, rollup_send_set,
-- rollup_days, instrumented_slices_daily, send_outcomes; fills rollup_slice_days, rollup_keys
-- and rollup_old itself, and reads rollup_second_days.
create or replace function pushledger_refresh_rollups_affected(p_as_of timestamptz, p_window interval)
returns void
language plpgsql as $$
begin
    perform pushledger_stored_sends();
    insert into rollup_slice_days select s.app_id, s.day from pushledger_refresh_slices(p_as_of) s;
    -- The second connection's days are whole already (it is classifying them): after the
    -- slices, as every day made whole here.
    insert into rollup_days
    select s.app_id, s.day from rollup_second_days s
     where not exists (select 1 from rollup_days d where d.app_id = s.app_id and d.day = s.day);
    -- Days mostly of new sends are recomputed whole before what else the inputs affect is
    -- looked up: their own sends need no look-ups then.
    perform pushledger_promote_busy_days();
    perform pushledger_affected_sends(p_as_of, p_window);
    perform pushledger_promote_busy_days();
    -- The whole days go through the engine.
    insert into rollup_keys
    select k.app_id, k.sent_at, k.event_id, max(k.scope) from rollup_send_set k
     where not exists (select 1 from rollup_days d where d.app_id = k.app_id and d.day = pushledger_day(k.sent_at))
     group by 1, 2, 3;
    -- The set's rows by key, one look-up each (a hash join would read all of send_outcomes).
    insert into rollup_old
    select o.* from rollup_keys k
     cross join lateral (select * from send_outcomes o
                          where o.app_id = k.app_id and o.sent_at = k.sent_at and o.event_id = k.event_id) o;
    -- A send without a row (new, or dated after the last as_of) is judged on every fact.
    update rollup_keys k set scope = 2
     where k.scope < 2
       and not exists (select 1 from rollup_old o where o.app_id = k.app_id and o.sent_at = k.sent_at
                       and o.event_id = k.event_id);
    analyze rollup_keys, rollup_old;
    truncate rollup_send_set;
    insert into rollup_send_set select * from rollup_keys where scope = 2;
    analyze rollup_send_set;
    insert into rollup_new select (pushledger_outcome_row(c)).* from pushledger_classify_send_set(p_as_of, p_window) c;
    insert into rollup_new select * from pushledger_rejudge_outcomes(p_as_of, p_window);
end
$$;

-- The runs of consecutive days (pushledger_day_runs) of the second connection's days
-- (rollup_second_days; p_second: chosen before they join rollup_days) or of the other whole
-- days (rollup_days), as the JSON array of objects with app_id, first_day and last_day that
-- pushledger_classify_runs takes; null when there is none.
-- Reads rollup_days, rollup_second_days; writes nothing.
create or replace function pushledger_whole_day_runs(p_second boolean)
returns json
-- PL/pgSQL: the working tables do not exist when the file is applied.
language plpgsql stable as $$
begin
    return (
        with days as (
            select s.app_id, s.day from rollup_second_days s where p_second
            union all
            select d.app_id, d.day from rollup_days d
             where not p_second
               and not exists (select 1 from rollup_second_days s where s.app_id = d.app_id and s.day = d.day)
        )
        select json_agg(r)
          from pushledger_day_runs((select array_agg(d.app_id order by d.app_id, d.day) from days d),
                                   (select array_agg(d.day order by d.app_id, d.day) from days d)) r);
end
$$;

-- The sends of the runs p_runs (pushledger_whole_day_runs) classified as of p_as_of.
-- Reads pushledger_classify_days; writes nothing.
create or replace function pushledger_classify_runs(p_runs json, p_as_of timestamptz, p_window interval)
returns setof send_outcomes
language sql stable as $$
    select c.*
      from json_to_recordset(p_runs) r(app_id text, first_day date, last_day date)
     cross join lateral pushledger_classify_days(r.app_id, r.first_day, r.last_day + 1, p_as_of, p_window) c
$$;

-- The second connection's part of a pass on two connections (docs/rollups.md "Two
-- connections"), chosen right after the refresh's first step so that it starts before the
-- rest: of the days to be recomputed whole, the last (in app and day order) holding about 80 %
-- of their sends (a day whose middle send falls in them), kept in rollup_second_days; their
-- runs (pushledger_whole_day_runs), null when there is none. Not all those days are known yet:
-- the days marked dirty are, and the busy ones (pushledger_busy_day) are estimated from the
-- taken inputs of sends, a day's sends being those its rollups counted plus those taken (a
-- count of `sends` reads every new send's row). A day estimated busy that is not is only
-- recomputed whole; the busy days missed, and those the look-ups add, stay on the pass's
-- connection. More than half: meanwhile the pass's connection also takes the sends stored, the
-- slices and the prompt cohorts, and looks up what else the inputs affect (in the pipeline's
-- pass all that took about 0.6 times as long as classifying the whole days). Empties
-- rollup_second_rows first of what a pass that rolled back after its second connection
-- committed, or whose second connection failed after committing, left: by delete, as a
-- truncate's lock would make that connection wait for this pass.
-- Reads rollup_days, rollup_taken, send_rollups_daily; writes rollup_second_rows,
-- rollup_second_days.
create or replace function pushledger_second_connection_runs()
returns json
language plpgsql as $$
begin
    delete from rollup_second_rows;
    insert into rollup_second_days
    with taken as (
        -- Counted as queued: a send queued twice (stored, then re-resolved) counts twice here.
        select t.app_id, pushledger_day(k.sent_at) as day, count(*) as sends
          from rollup_taken t cross join unnest(t.times) k(sent_at)
         where t.kind = 'send'
         group by 1, 2
    ), days as (
        select x.app_id, x.day, bool_or(x.dirty) as dirty, sum(x.taken)::bigint as taken
          from (select d.app_id, d.day, true as dirty, 0::bigint as taken from rollup_days d
                union all
                select t.app_id, t.day, false, t.sends from taken t) x
         group by 1, 2
    ), counted as (
        select d.*, d.taken + coalesce((select sum(r.sends) from send_rollups_daily r
                                         where r.app_id = d.app_id and r.day = d.day), 0)::bigint as sends
          from days d
    )
    select w.app_id, w.day
      from (select h.app_id, h.day,
                   sum(h.sends) over (order by h.app_id desc, h.day desc) - h.sends / 2.0 as from_end,
                   sum(h.sends) over () as total
              from counted h
             where h.dirty or pushledger_busy_day(h.taken, h.sends)) w
     where w.from_end < 0.8 * w.total;
    return pushledger_whole_day_runs(true);
end
$$;

-- Classifies the runs p_runs (pushledger_second_connection_runs) into rollup_second_rows, on the
-- second connection, in the pass's snapshot (it cannot write the pass's working tables); returns
-- how many.
-- Reads pushledger_classify_runs; writes rollup_second_rows.
create or replace function pushledger_store_second_rows(p_runs json, p_as_of timestamptz, p_window interval)
returns bigint
language plpgsql as $$
declare
    v_rows bigint;
begin
    insert into rollup_second_rows select * from pushledger_classify_runs(p_runs, p_as_of, p_window);
    get diagnostics v_rows = row_count;
    return v_rows;
end
$$;

-- The rows the second connection committed, counted in the pass's transaction (the pass
-- checks them against what that connection stored); they stay in rollup_second_rows, which
-- the refresh's last step reads beside rollup_new (copying them cost the pass's last step
-- about 30 ms for 30,000 rows) and then empties.
-- Reads rollup_second_rows; writes nothing.
create or replace function pushledger_take_second_rows()
returns bigint
language sql stable as $$
    select count(*) from rollup_second_rows
$$;

-- Classifies the sends of the whole days that are not (or, p_second, are: when the second
-- connection failed) the second connection's into rollup_new; returns how many.
-- Reads rollup_days, rollup_second_days, pushledger_classify_runs; writes rollup_new,
-- rollup_second_days (emptied, p_second).
create or replace function pushledger_classify_whole_days(p_as_of timestamptz, p_window interval, p_second boolean)
returns bigint
language plpgsql as $$
declare
    v_rows bigint;
begin
    insert into rollup_new
    select * from pushledger_classify_runs(pushledger_whole_day_runs(p_second), p_as_of, p_window);
    get diagnostics v_rows = row_count;
    if p_second then
        -- The failed connection's days are the pass's own now: the last step reads none of the
        -- rows it may still have committed (they wait for the next pass on two connections,
        -- which deletes them), and takes no lock on their table.
        truncate rollup_second_days;
    end if;
    return v_rows;
end
$$;

-- The refresh after the whole days' classification: replaces the send_outcomes rows judged
-- again, moves the rollups and landings, records the refresh; returns what
-- pushledger_refresh_rollups returns.
-- Reads rollup_days, rollup_new, rollup_second_days, rollup_second_rows (the second
-- connection's rows when it had days and did not fail; emptied), rollup_slice_days,
-- send_outcomes; writes rollup_old and through its steps send_outcomes, rollup_delta, the
-- rollups, the landing rollups, rollup_refresh_state.
create or replace function pushledger_refresh_rollups_end(p_as_of timestamptz, p_window interval)
returns table (refreshed_app text, refreshed_day date)
language plpgsql as $$
declare
    v_second boolean;
    v_sends bigint;
    v_moved_apps text[];
    v_moved_days date[];
begin
    insert into rollup_old
    select o.* from rollup_days d
      join send_outcomes o on o.app_id = d.app_id and o.sent_at >= d.day::timestamp at time zone 'UTC'
                          and o.sent_at < (d.day + 1)::timestamp at time zone 'UTC';
    v_second := exists (select 1 from rollup_second_days);
    select count(*) + case when v_second then pushledger_take_second_rows() else 0 end into v_sends from rollup_new;
    perform pushledger_replace_outcomes(v_second);
    if v_second then
        truncate rollup_second_rows;
    end if;
    select array_agg(m.app_id), array_agg(m.day) into v_moved_apps, v_moved_days
      from pushledger_apply_rollup_deltas(p_as_of, false) m;
    perform pushledger_refresh_landings(p_as_of);
    perform pushledger_record_refresh(p_as_of, p_window, false, v_sends);
    return query
    select m.app_id, m.day from unnest(v_moved_apps, v_moved_days) m(app_id, day)
    union select d.app_id, d.day from rollup_days d
    union select s.app_id, s.day from rollup_slice_days s
     order by 1, 2;
end
$$;
