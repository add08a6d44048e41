-- send_outcomes: every send's facts and outcome (sql/migrations/0007_send_outcomes.sql), the
-- rollups' source. The functions of this file are the only ones that write it: a rebuild loads
-- it whole (pushledger_load_outcomes), a refresh replaces the rows of the sends it judged again
-- (pushledger_replace_outcomes). The rollups (sql/engine/send_rollups.sql) are always the
-- grouping of its rows.

drop function if exists pushledger_classify_days(text, date, date, timestamptz, interval, text);
drop function if exists pushledger_replace_outcomes(timestamptz);
drop function if exists pushledger_replace_outcomes();

-- One send_outcomes row from a classified send (the columns the rollups group by and count).
-- Reads nothing; writes nothing.
create or replace function pushledger_outcome_row(c pushledger_classified_send)
returns send_outcomes
language sql immutable as $$
    select row(c.app_id, c.sent_at, c.event_id, c.day, c.notification_id, c.installation_id, c.provider, c.channel,
               c.campaign, c.status, c.reason, c.reason_class, c.token_invalid, c.to_invalid_token, c.platform,
               c.app_version, c.display_state, c.channel_blocked, c.instrumented, c.opened, c.received_displayed,
               c.received_undisplayed, c.outcome, c.os_version, c.sdk_int, c.standby_bucket, c.background_restricted,
               c.ignoring_battery_optimizations, c.low_power_mode, c.cause, c.first_life_at, c.first_life_notification,
               c.latency_bucket, c.push_type, c.mutable_content, c.message_kind,
               coalesce(c.background_instrumented, false), c.browser, c.push_service)::send_outcomes
$$;

-- The send_outcomes rows of one app's days [p_from, p_to), classified in one set-based pass,
-- each day judged as its own window (p_daily).
-- Reads pushledger_classify_sends (sql/engine/classify.sql); writes nothing.
create or replace function pushledger_classify_days(
    p_app text, p_from date, p_to date, p_as_of timestamptz, p_window interval)
returns setof send_outcomes
language sql stable as $$
    select (pushledger_outcome_row(c)).*
      from pushledger_classify_sends(p_app, p_from::timestamp at time zone 'UTC', p_to::timestamp at time zone 'UTC',
                                     p_as_of, p_window, true) c
$$;

-- Loads send_outcomes whole as of p_as_of (a rebuild): emptied, then every send of every app
-- classified in runs of 7 days, its indexes built once after the load (sql/engine/bulk_load.sql).
-- Returns how many rows it holds.
-- Reads sends (the apps and their first and last days), pushledger_classify_days;
-- writes send_outcomes.
create or replace function pushledger_load_outcomes(p_as_of timestamptz, p_window interval)
returns bigint
language plpgsql as $$
declare
    v_run record;
    v_indexes text[];
    v_rows bigint := 0;
    v_run_rows bigint;
begin
    truncate send_outcomes;
    v_indexes := pushledger_drop_indexes('send_outcomes');
    for v_run in
        with recursive apps as (
            select min(s.app_id) as app_id from sends s
            union all
            select (select min(s.app_id) from sends s where s.app_id > a.app_id) from apps a where a.app_id is not null
        ), spans as (
            select a.app_id,
                   (select pushledger_day(min(s.sent_at)) from sends s where s.app_id = a.app_id) as first_day,
                   (select pushledger_day(max(s.sent_at)) from sends s where s.app_id = a.app_id
                    and s.sent_at <= p_as_of) as last_day
              from apps a where a.app_id is not null
        )
        select sp.app_id, d::date as first_day, least(d::date + 6, sp.last_day) as last_day
          from spans sp cross join generate_series(sp.first_day, sp.last_day, interval '7 days') d
         order by 1, 2
    loop
        insert into send_outcomes
        select * from pushledger_classify_days(v_run.app_id, v_run.first_day, v_run.last_day + 1, p_as_of, p_window);
        get diagnostics v_run_rows = row_count;
        v_rows := v_rows + v_run_rows;
    end loop;
    perform pushledger_build_indexes(v_indexes);
    return v_rows;
end
$$;

-- Replaces the send_outcomes rows of the sends a refresh judged again by their new rows, and
-- keeps the rows that changed, signed, for the rollups and landings. The new rows: rollup_new,
-- and with p_second those the pass's second connection committed.
-- Reads rollup_old (the rows before), rollup_new (after; sql/engine/work_tables.sql),
-- rollup_second_rows (p_second); writes send_outcomes, rollup_delta.
create or replace function pushledger_replace_outcomes(p_second boolean)
returns void
language plpgsql
-- The rows of a fleet's whole days hashed in memory (at the default, 46,000 rows went to disk
-- in two batches).
set work_mem = '256MB'
as $$
begin
    with after as not materialized (
        -- Not materialized: each side below reads the rows itself, with no copy.
        select * from rollup_new
        union all
        select * from rollup_second_rows where p_second
    )
    insert into rollup_delta
    select -1, o.* from rollup_old o
     where not exists (select 1 from after n
                        where n.app_id = o.app_id and n.sent_at = o.sent_at and n.event_id = o.event_id
                          and row(n.*) is not distinct from row(o.*))
    union all
    select 1, n.* from after n
     where not exists (select 1 from rollup_old o
                        where o.app_id = n.app_id and o.sent_at = n.sent_at and o.event_id = n.event_id
                          and row(n.*) is not distinct from row(o.*));
    delete from send_outcomes s using rollup_delta d
     where d.sign = -1 and s.app_id = d.app_id and s.sent_at = d.sent_at and s.event_id = d.event_id;
    insert into send_outcomes
    select app_id, sent_at, event_id, day, notification_id, installation_id, provider, channel, campaign, status,
           reason, reason_class, token_invalid, to_invalid_token, platform, app_version, display_state,
           channel_blocked, instrumented, opened, received_displayed, received_undisplayed, outcome, os_version,
           sdk_int, standby_bucket, background_restricted, ignoring_battery_optimizations, low_power_mode, cause,
           first_life_at, first_life_notification, latency_bucket, push_type, mutable_content, message_kind,
           background_instrumented, browser, push_service
      from rollup_delta where sign = 1;
end
$$;
