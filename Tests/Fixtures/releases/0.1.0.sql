-- The schema of a database migrated by PushLedger 0.1.0 (git d424310),
-- written by scripts/release-snapshot.sh. Never edit it: it stands for databases in the field.
do $$ begin create role pushledger_reader nologin;
    exception when duplicate_object or unique_violation then null; end $$;
--
-- PostgreSQL database dump
--


-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: pushledger_classified_send; Type: TYPE; Schema: public; Owner: -
--

CREATE TYPE public.pushledger_classified_send AS (
	app_id text,
	event_id uuid,
	notification_id uuid,
	installation_id uuid,
	resolved_by text,
	sent_at timestamp with time zone,
	day date,
	provider text,
	channel text,
	campaign text,
	status integer,
	reason text,
	reason_class text,
	token_invalid boolean,
	to_invalid_token boolean,
	platform text,
	app_version text,
	snapshot_event_id uuid,
	display_state text,
	authorization_status text,
	channel_blocked boolean,
	instrumented boolean,
	opened boolean,
	received_displayed boolean,
	received_undisplayed boolean,
	outcome text,
	os_version text,
	sdk_int integer,
	standby_bucket text,
	background_restricted boolean,
	ignoring_battery_optimizations boolean,
	low_power_mode boolean,
	cause text,
	first_life_at timestamp with time zone,
	first_life_notification uuid,
	latency_bucket text
);


--
-- Name: pushledger_affected_sends(timestamp with time zone, interval); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_affected_sends(p_as_of timestamp with time zone, p_window interval) RETURNS void
    LANGUAGE plpgsql
    AS $$
begin
    insert into rollup_send_set
    -- Sends stored, changed or removed.
    select t.app_id, k.sent_at, k.event_id, 2::smallint
      from rollup_taken t cross join unnest(t.keys, t.times) k(event_id, sent_at)
     where t.kind = 'send'
    union
    -- Sends of notifications with a new receipt or open.
    select s.app_id, s.sent_at, s.event_id, 1
      from (select distinct t.app_id, k.notification_id
              from rollup_taken t cross join unnest(t.keys) k(notification_id) where t.kind in ('receipt', 'open')) c
      join sends s on s.app_id = c.app_id and s.notification_id = c.notification_id
    union
    -- Sends of an installation from a new snapshot's time to its next snapshot.
    select s.app_id, s.sent_at, s.event_id, 2
      from (select t.app_id, k.installation_id, min(k.occurred_at) as since, max(k.occurred_at) as latest
              from rollup_taken t cross join unnest(t.keys, t.times) k(installation_id, occurred_at)
             where t.kind = 'snapshot' group by 1, 2) n
      -- Up to the snapshot after the latest new one: new snapshots can follow each other.
      left join lateral (
            select n2.occurred_at from settings_snapshots n2
             where n2.app_id = n.app_id and n2.installation_id = n.installation_id and n2.occurred_at > n.latest
             order by n2.occurred_at limit 1) nx on true
      join sends s on s.app_id = n.app_id and s.installation_id = n.installation_id
                  and s.sent_at >= n.since and s.sent_at < coalesce(nx.occurred_at, 'infinity')
    union
    -- Later sends to a token whose invalidating result was stored or removed, or that was
    -- registered after an earlier invalidating result.
    select s.app_id, s.sent_at, s.event_id, 2
      from (select t.app_id, k.provider, k.token_key, min(k.at) as since, bool_or(t.kind = 'token') as result
              from rollup_taken t cross join unnest(t.keys, t.providers, t.times) k(token_key, provider, at)
             where t.kind in ('token', 'registration') group by 1, 2, 3) k
      join sends s on s.app_id = k.app_id and s.provider = k.provider and s.token_key = k.token_key
                  and s.sent_at >= k.since
     where k.result or exists (
            select 1 from sends p
             where p.app_id = k.app_id and p.provider = k.provider and p.token_key = k.token_key
               and p.sent_at < k.since and pushledger_reason_class(p.status, p.reason) = 'token_invalid')
    union
    -- Sends of an installation that appeared or changed platform (the platform of sends with no
    -- as-of snapshot).
    select s.app_id, s.sent_at, s.event_id, 2
      from (select distinct t.app_id, k.installation_id
              from rollup_taken t cross join unnest(t.keys) k(installation_id) where t.kind = 'installation') i
      join sends s on s.app_id = i.app_id and s.installation_id = i.installation_id
    union
    -- Sends with a cause of an installation with a new (or removed) telemetry event after them,
    -- whose first sign of life is not earlier than it: it may be their first sign of life now.
    -- Per installation, its earliest and latest event (a superset: re-judging one more send is
    -- harmless).
    select o.app_id, o.sent_at, o.event_id, 2
      from (select t.app_id, k.installation_id, min(k.occurred_at) as earliest, max(k.occurred_at) as latest
              from rollup_taken t cross join unnest(t.keys, t.times) k(installation_id, occurred_at)
             where t.kind = 'life' group by 1, 2) l
      join send_outcomes o on o.app_id = l.app_id and o.installation_id = l.installation_id and o.cause is not null
                          and o.sent_at < l.latest
     where coalesce(o.first_life_at, 'infinity') >= l.earliest
    union
    -- Sends with a cause whose first sign of life is a receipt of a notification with an
    -- attempt stored, changed or removed: that attempt may supersede them (or no longer).
    select o.app_id, o.sent_at, o.event_id, 2
      from (select t.app_id, k.notification_id
              from rollup_taken t cross join unnest(t.keys) k(notification_id) where t.kind = 'notification'
            union
            select s.app_id, s.notification_id
              from (select distinct t.app_id, k.event_id, k.sent_at
                      from rollup_taken t cross join unnest(t.keys, t.times) k(event_id, sent_at) where t.kind = 'send') k
              join sends s on s.app_id = k.app_id and s.sent_at = k.sent_at and s.event_id = k.event_id) n
      join send_outcomes o on o.app_id = n.app_id and o.first_life_notification = n.notification_id
    union
    -- Pending sends whose confirmation window has passed.
    select o.app_id, o.sent_at, o.event_id, 0
      from send_outcomes o where o.outcome = 'pending' and o.sent_at <= p_as_of - p_window;
end
$$;


--
-- Name: pushledger_alert_delivery_counts(timestamp with time zone, timestamp with time zone, timestamp with time zone, interval); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_alert_delivery_counts(p_from timestamp with time zone, p_to timestamp with time zone, p_as_of timestamp with time zone, p_window interval DEFAULT '24:00:00'::interval) RETURNS TABLE(app_id text, platform text, channel text, accepted bigint, silent_loss bigint, confirmed bigint, accepted_installations bigint)
    LANGUAGE sql STABLE
    AS $$
    select g.app_id, g.platform, g.channel, g.accepted,
           max(r.numerator) filter (where r.rate = 'silent_loss_rate'),
           max(r.numerator) filter (where r.rate = 'confirmed_delivery_rate'),
           g.accepted_installations
      from (select c.app_id, c.platform, c.channel,
                   count(*) filter (where c.outcome not in ('rejected', 'pending')) as accepted,
                   count(distinct coalesce(c.installation_id, c.event_id))
                       filter (where c.outcome not in ('rejected', 'pending')) as accepted_installations,
                   array_agg(c.outcome) as outcomes, array_agg(c.token_invalid) as token_invalid
              from (select distinct s.app_id from sends s
                     where s.sent_at >= p_from and s.sent_at < p_to and s.sent_at <= p_as_of) apps
             cross join lateral pushledger_classified_sends(apps.app_id, p_from, p_to, p_as_of, p_window) c
             group by c.app_id, c.platform, c.channel) g
     cross join lateral pushledger_outcome_rates(g.outcomes, g.token_invalid) r
     group by g.app_id, g.platform, g.channel, g.accepted, g.accepted_installations
$$;


--
-- Name: pushledger_alert_latest_telemetry(timestamp with time zone, interval); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_alert_latest_telemetry(p_at timestamp with time zone, p_lookback interval DEFAULT '7 days'::interval) RETURNS TABLE(app_id text, latest_received_at timestamp with time zone)
    LANGUAGE sql STABLE
    AS $$
    with per_app as (
        select i.app_id, max(i.last_received_at) as latest from installations i group by i.app_id
    ), as_of as (
        select p.app_id,
               case when p.latest <= p_at then p.latest else (
                   select max(t.received_at) from (
                       select e.received_at, e.occurred_at from settings_snapshots e where e.app_id = p.app_id
                       union all select e.received_at, e.occurred_at from notification_receipts e where e.app_id = p.app_id
                       union all select e.received_at, e.occurred_at from notification_opens e where e.app_id = p.app_id
                       union all select e.received_at, e.occurred_at from permission_prompts e where e.app_id = p.app_id
                       union all select e.received_at, e.occurred_at from experiment_exposures e where e.app_id = p.app_id
                       union all select e.received_at, e.occurred_at from token_registrations e where e.app_id = p.app_id
                   ) t
                    where t.received_at > p_at - p_lookback and t.received_at <= p_at
                      and t.occurred_at >= p_at - p_lookback - interval '30 days'
                      and t.occurred_at <= p_at + interval '1 day')
               end as latest
          from per_app p
    )
    select a.app_id, case when a.latest > p_at - p_lookback then a.latest end from as_of a
$$;


--
-- Name: pushledger_alert_opt_in_counts(timestamp with time zone, timestamp with time zone, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_alert_opt_in_counts(p_from timestamp with time zone, p_to timestamp with time zone, p_as_of timestamp with time zone) RETURNS TABLE(app_id text, platform text, prompted bigint, granted bigint)
    LANGUAGE sql STABLE
    AS $$
    with first_prompts as (
        select distinct on (p.app_id, p.installation_id) p.app_id, p.platform, p.result, p.occurred_at
          from permission_prompts p
         where p.prompt = 'system' and p.result <> 'already_determined' and p.occurred_at <= p_as_of
         order by p.app_id, p.installation_id, p.occurred_at, p.received_at, p.event_id
    )
    select f.app_id, f.platform, count(*), count(*) filter (where f.result = 'granted')
      from first_prompts f
     where f.occurred_at >= p_from and f.occurred_at < p_to
     group by f.app_id, f.platform
$$;


--
-- Name: pushledger_alert_reason_classes(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_alert_reason_classes() RETURNS SETOF text
    LANGUAGE sql IMMUTABLE
    AS $$
    values ('token_invalid'), ('throttled'), ('auth'), ('payload'), ('provider_error'), ('other')
$$;


--
-- Name: pushledger_alert_rejection_counts(timestamp with time zone, timestamp with time zone, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_alert_rejection_counts(p_from timestamp with time zone, p_to timestamp with time zone, p_as_of timestamp with time zone) RETURNS TABLE(app_id text, provider text, reason_class text, sends bigint, rejected bigint)
    LANGUAGE sql STABLE
    AS $$
    with per_class as (
        select s.app_id, s.provider, pushledger_reason_class(s.status, s.reason) as reason_class, count(*) as n
          from sends s
         where s.sent_at >= p_from and s.sent_at < p_to and s.sent_at <= p_as_of
         group by 1, 2, 3
    ), totals as (
        select p.app_id, p.provider, sum(p.n)::bigint as sends from per_class p group by 1, 2
    )
    select t.app_id, t.provider, k.reason_class, t.sends, coalesce(p.n, 0)::bigint
      from totals t
     cross join pushledger_alert_reason_classes() k(reason_class)
      left join per_class p on p.app_id = t.app_id and p.provider = t.provider and p.reason_class = k.reason_class
$$;


--
-- Name: pushledger_analyze_staging(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_analyze_staging() RETURNS void
    LANGUAGE plpgsql
    AS $$
begin
    if (select count(*) from stage_telemetry)
       > 2 * greatest(0, (select reltuples from pg_class where oid = 'pg_temp.stage_telemetry'::regclass)) then
        analyze pg_temp.stage_telemetry;
    end if;
    if (select count(*) from stage_sends)
       > 2 * greatest(0, (select reltuples from pg_class where oid = 'pg_temp.stage_sends'::regclass)) then
        analyze pg_temp.stage_sends;
    end if;
end
$$;


--
-- Name: pushledger_apply_prompt_members(timestamp with time zone, text, uuid[]); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_apply_prompt_members(p_as_of timestamp with time zone, p_app text, p_installations uuid[]) RETURNS integer
    LANGUAGE plpgsql
    SET plan_cache_mode TO 'force_custom_plan'
    SET jit TO 'off'
    AS $$
declare
    v_experiments text[];
    v_days date[];
begin
    if to_regclass('pg_temp.prompt_member_changes') is null then
        create temp table prompt_member_changes (fresh boolean, like prompt_cohort_members) on commit drop;
    end if;
    truncate prompt_member_changes;
    insert into prompt_member_changes
    with fresh as materialized (
        select * from pushledger_prompt_member_facts(p_as_of, p_app, p_installations)
    ), stored as materialized (
        select m.* from prompt_cohort_members m where m.app_id = p_app and m.installation_id = any (p_installations)
    )
    select false, * from (select * from stored except select * from fresh) gone
    union all
    select true, * from (select * from fresh except select * from stored) came;

    delete from prompt_cohort_members m using prompt_member_changes c
     where not c.fresh and m.app_id = p_app and m.installation_id = c.installation_id and m.experiment = c.experiment;
    insert into prompt_cohort_members
    select c.app_id, c.installation_id, c.experiment, c.day, c.joined_at, c.cohort, c.platform, c.first_event_at,
           c.first_prompt_at, c.first_prompt_result, c.can_display_now, c.retained_eligible, c.retained
      from prompt_member_changes c where c.fresh;

    select array_agg(g.experiment), array_agg(g.day) into v_experiments, v_days
      from (select distinct c.experiment, c.day from prompt_member_changes c) g;
    perform pushledger_group_prompt_days(p_as_of, p_app, v_experiments, v_days) where v_days is not null;
    return coalesce(cardinality(v_days), 0);
end
$$;


--
-- Name: pushledger_apply_retention(timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_apply_retention(p_cutoff timestamp with time zone) RETURNS TABLE(object text, kind text, row_count bigint)
    LANGUAGE plpgsql
    AS $_$
declare
    v_t record;
    v_count bigint;
begin
    perform pg_advisory_xact_lock(hashtext('pushledger_ensure_partitions'));
    return query select d, 'partition'::text, null::bigint from pushledger_drop_partitions_before(p_cutoff) d;
    for v_t in select * from pushledger_partitioned_tables() loop
        execute format('delete from %I where %I < $1', v_t.table_name || '_default', v_t.time_column)
            using p_cutoff;
        get diagnostics v_count = row_count;
        if v_count > 0 then
            object := v_t.table_name || '_default'; kind := 'rows'; row_count := v_count;
            return next;
        end if;
    end loop;
    -- Only keys of events old enough to be refused as too_old anyway should go: keep the
    -- cutoff past the contract's 30 days.
    delete from event_ids where received_at < p_cutoff;
    get diagnostics v_count = row_count;
    object := 'event_ids'; kind := 'rows'; row_count := v_count;
    return next;
    delete from failed_events where received_at < p_cutoff;
    get diagnostics v_count = row_count;
    object := 'failed_events'; kind := 'rows'; row_count := v_count;
    return next;
end
$_$;


--
-- Name: pushledger_apply_rollup_deltas(timestamp with time zone, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_apply_rollup_deltas(p_as_of timestamp with time zone, p_source text DEFAULT 'rollup_delta'::text) RETURNS TABLE(app_id text, day date)
    LANGUAGE plpgsql
    AS $_$
#variable_conflict use_column
declare
    v_source text := case p_source when 'send_outcomes' then '(select 1 as sign, o.* from send_outcomes o)'
                                   else 'rollup_delta' end;
begin
    create temp table if not exists rollup_moved (app_id text, day date) on commit drop;
    truncate rollup_moved;
    execute replace($sql$
    with deltas as (
        select d.app_id, d.day, d.platform, d.channel, d.app_version, d.campaign, d.provider,
               d.os_version, d.sdk_int, d.standby_bucket, d.background_restricted, d.ignoring_battery_optimizations,
               d.low_power_mode,
               sum(d.sign) as sends,
               sum(d.sign) filter (where d.outcome not in ('rejected', 'pending')) as accepted,
               sum(d.sign) filter (where d.outcome = 'rejected') as rejected,
               sum(d.sign) filter (where d.outcome = 'opened') as opened,
               sum(d.sign) filter (where d.outcome = 'received') as received,
               sum(d.sign) filter (where d.outcome = 'pending') as pending,
               sum(d.sign) filter (where d.outcome = 'blocked_app') as blocked_app,
               sum(d.sign) filter (where d.outcome = 'blocked_channel') as blocked_channel,
               sum(d.sign) filter (where d.outcome = 'unattributed') as unattributed,
               sum(d.sign) filter (where d.outcome = 'unconfirmed') as unconfirmed,
               sum(d.sign) filter (where d.token_invalid) as token_invalid,
               sum(d.sign) filter (where d.to_invalid_token) as to_invalid_token,
               -- Rule 8's other causes (no as-of snapshot, unresolved installation) hold in any window.
               sum(d.sign) filter (where d.outcome = 'unattributed' and d.display_state <> 'unknown'
                                   and d.installation_id is not null and not d.instrumented) as uninstrumented,
               sum(d.sign) filter (where d.outcome = 'unconfirmed' and d.cause = 'superseded') as superseded,
               sum(d.sign) filter (where d.outcome = 'unconfirmed' and d.cause = 'app_stopped') as app_stopped,
               sum(d.sign) filter (where d.outcome = 'unconfirmed' and d.cause = 'expired') as expired,
               sum(d.sign) filter (where d.outcome = 'unconfirmed' and d.cause = 'device_inactive') as device_inactive,
               sum(d.sign) filter (where d.outcome = 'unconfirmed' and d.cause = 'unexplained') as unexplained,
               sum(d.sign) filter (where d.outcome = 'unattributed' and d.cause = 'superseded') as superseded_uninstrumented,
               sum(d.sign) filter (where d.outcome = 'unattributed' and d.cause = 'app_stopped') as app_stopped_uninstrumented,
               sum(d.sign) filter (where d.outcome = 'unattributed' and d.cause = 'expired') as expired_uninstrumented,
               sum(d.sign) filter (where d.outcome = 'unattributed' and d.cause = 'device_inactive') as device_inactive_uninstrumented,
               sum(d.sign) filter (where d.outcome = 'unattributed' and d.cause = 'unexplained') as unexplained_uninstrumented,
               sum(d.sign) filter (where d.latency_bucket = 'lt_10s') as latency_lt_10s,
               sum(d.sign) filter (where d.latency_bucket = 'lt_1m') as latency_lt_1m,
               sum(d.sign) filter (where d.latency_bucket = 'lt_10m') as latency_lt_10m,
               sum(d.sign) filter (where d.latency_bucket = 'lt_1h') as latency_lt_1h,
               sum(d.sign) filter (where d.latency_bucket = 'lt_6h') as latency_lt_6h,
               sum(d.sign) filter (where d.latency_bucket = 'lt_24h') as latency_lt_24h,
               sum(d.sign) filter (where d.latency_bucket = 'ge_24h') as latency_ge_24h
          from $source d
         group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13
    ), moved as (
        insert into send_rollups_daily as r (
            app_id, day, platform, channel, app_version, campaign, provider, sends, accepted, rejected, opened,
            received, pending, blocked_app, blocked_channel, unattributed, unconfirmed, token_invalid,
            to_invalid_token, as_of, refreshed_at, unattributed_uninstrumented,
            os_version, sdk_int, standby_bucket, background_restricted, ignoring_battery_optimizations, low_power_mode,
            superseded, app_stopped, expired, device_inactive, unexplained, superseded_uninstrumented, app_stopped_uninstrumented, expired_uninstrumented, device_inactive_uninstrumented, unexplained_uninstrumented, latency_lt_10s, latency_lt_1m, latency_lt_10m, latency_lt_1h, latency_lt_6h, latency_lt_24h, latency_ge_24h)
        select d.app_id, d.day, d.platform, d.channel, d.app_version, d.campaign, d.provider, d.sends,
               coalesce(d.accepted, 0), coalesce(d.rejected, 0), coalesce(d.opened, 0), coalesce(d.received, 0),
               coalesce(d.pending, 0), coalesce(d.blocked_app, 0), coalesce(d.blocked_channel, 0),
               coalesce(d.unattributed, 0), coalesce(d.unconfirmed, 0), coalesce(d.token_invalid, 0),
               coalesce(d.to_invalid_token, 0), $1, now(), coalesce(d.uninstrumented, 0),
               d.os_version, d.sdk_int, d.standby_bucket, d.background_restricted, d.ignoring_battery_optimizations,
               d.low_power_mode,
               coalesce(d.superseded, 0), coalesce(d.app_stopped, 0), coalesce(d.expired, 0), coalesce(d.device_inactive, 0), coalesce(d.unexplained, 0), coalesce(d.superseded_uninstrumented, 0), coalesce(d.app_stopped_uninstrumented, 0), coalesce(d.expired_uninstrumented, 0), coalesce(d.device_inactive_uninstrumented, 0), coalesce(d.unexplained_uninstrumented, 0), coalesce(d.latency_lt_10s, 0), coalesce(d.latency_lt_1m, 0), coalesce(d.latency_lt_10m, 0), coalesce(d.latency_lt_1h, 0), coalesce(d.latency_lt_6h, 0), coalesce(d.latency_lt_24h, 0), coalesce(d.latency_ge_24h, 0)
          from deltas d
         where d.sends <> 0 or d.accepted <> 0 or d.rejected <> 0 or d.opened <> 0 or d.received <> 0
            or d.pending <> 0 or d.blocked_app <> 0 or d.blocked_channel <> 0 or d.unattributed <> 0
            or d.unconfirmed <> 0 or d.token_invalid <> 0 or d.to_invalid_token <> 0 or d.uninstrumented <> 0
            or d.superseded <> 0 or d.app_stopped <> 0 or d.expired <> 0 or d.device_inactive <> 0 or d.unexplained <> 0 or d.superseded_uninstrumented <> 0 or d.app_stopped_uninstrumented <> 0 or d.expired_uninstrumented <> 0 or d.device_inactive_uninstrumented <> 0 or d.unexplained_uninstrumented <> 0 or d.latency_lt_10s <> 0 or d.latency_lt_1m <> 0 or d.latency_lt_10m <> 0 or d.latency_lt_1h <> 0 or d.latency_lt_6h <> 0 or d.latency_lt_24h <> 0 or d.latency_ge_24h <> 0
        on conflict (app_id, day, platform, channel, app_version, campaign, provider, os_version, sdk_int, standby_bucket,
                     background_restricted, ignoring_battery_optimizations, low_power_mode) do update set
            sends = r.sends + excluded.sends, accepted = r.accepted + excluded.accepted,
            rejected = r.rejected + excluded.rejected, opened = r.opened + excluded.opened,
            received = r.received + excluded.received, pending = r.pending + excluded.pending,
            blocked_app = r.blocked_app + excluded.blocked_app,
            blocked_channel = r.blocked_channel + excluded.blocked_channel,
            unattributed = r.unattributed + excluded.unattributed, unconfirmed = r.unconfirmed + excluded.unconfirmed,
            token_invalid = r.token_invalid + excluded.token_invalid,
            to_invalid_token = r.to_invalid_token + excluded.to_invalid_token,
            unattributed_uninstrumented = r.unattributed_uninstrumented + excluded.unattributed_uninstrumented,
            superseded = r.superseded + excluded.superseded,
            app_stopped = r.app_stopped + excluded.app_stopped,
            expired = r.expired + excluded.expired,
            device_inactive = r.device_inactive + excluded.device_inactive,
            unexplained = r.unexplained + excluded.unexplained,
            superseded_uninstrumented = r.superseded_uninstrumented + excluded.superseded_uninstrumented,
            app_stopped_uninstrumented = r.app_stopped_uninstrumented + excluded.app_stopped_uninstrumented,
            expired_uninstrumented = r.expired_uninstrumented + excluded.expired_uninstrumented,
            device_inactive_uninstrumented = r.device_inactive_uninstrumented + excluded.device_inactive_uninstrumented,
            unexplained_uninstrumented = r.unexplained_uninstrumented + excluded.unexplained_uninstrumented,
            latency_lt_10s = r.latency_lt_10s + excluded.latency_lt_10s,
            latency_lt_1m = r.latency_lt_1m + excluded.latency_lt_1m,
            latency_lt_10m = r.latency_lt_10m + excluded.latency_lt_10m,
            latency_lt_1h = r.latency_lt_1h + excluded.latency_lt_1h,
            latency_lt_6h = r.latency_lt_6h + excluded.latency_lt_6h,
            latency_lt_24h = r.latency_lt_24h + excluded.latency_lt_24h,
            latency_ge_24h = r.latency_ge_24h + excluded.latency_ge_24h,
            as_of = excluded.as_of, refreshed_at = excluded.refreshed_at
        returning r.app_id, r.day
    )
    insert into rollup_moved select distinct m.app_id, m.day from moved m
    $sql$, '$source', v_source) using p_as_of;

    execute replace($sql$
    with deltas as (
        select d.app_id, d.day, d.platform, d.provider, d.reason_class, d.reason, d.status, sum(d.sign) as rejected
          from $source d where d.outcome = 'rejected'
         group by 1, 2, 3, 4, 5, 6, 7 having sum(d.sign) <> 0
    ), moved as (
        insert into send_rejections_daily as r
        select d.app_id, d.day, d.platform, d.provider, d.reason_class, d.reason, d.status, d.rejected, now()
          from deltas d
        on conflict (app_id, day, platform, provider, reason_class, reason, status) do update set
            rejected = r.rejected + excluded.rejected, refreshed_at = excluded.refreshed_at
        returning r.app_id, r.day
    )
    insert into rollup_moved select distinct m.app_id, m.day from moved m
    $sql$, '$source', v_source);

    delete from send_rollups_daily r using (select distinct * from rollup_moved) m
     where r.app_id = m.app_id and r.day = m.day and r.sends = 0;
    delete from send_rejections_daily r using (select distinct * from rollup_moved) m
     where r.app_id = m.app_id and r.day = m.day and r.rejected = 0;
    return query select distinct m.app_id, m.day from rollup_moved m;
end
$_$;


--
-- Name: pushledger_apply_staged(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_apply_staged() RETURNS TABLE(unit integer, accepted bigint)
    LANGUAGE plpgsql
    AS $$
#variable_conflict use_column
declare
    v_types text[];
    v_sends boolean;
begin
    perform pushledger_analyze_staging();
    select array_agg(distinct type) into v_types from stage_telemetry;
    v_sends := exists (select 1 from stage_sends);

    perform pushledger_ensure_partitions(min(t), max(t))
       from (select occurred_at as t from stage_telemetry
             union all select sent_at from stage_sends) times;

    -- De-duplication: the first copy by seq within the batch, and only if no earlier batch
    -- stored the key. Keys go in sorted order so concurrent writers cannot deadlock here.
    with firsts as (
        select distinct on (app_id, event_id) app_id, event_id, seq, unit, received_at
          from (select app_id, event_id, seq, unit, received_at from stage_telemetry
                union all
                select app_id, event_id, seq, unit, received_at from stage_sends) staged
         order by app_id, event_id, seq
    ), stored as (
        insert into event_ids (app_id, event_id, received_at)
        select app_id, event_id, received_at from firsts order by app_id, event_id
        on conflict do nothing
        returning app_id, event_id
    )
    insert into stage_fresh (seq, unit)
    select firsts.seq, firsts.unit from firsts join stored using (app_id, event_id);

    if v_types is not null then
        perform pushledger_store_staged_telemetry(v_types);
    end if;
    perform pushledger_store_staged_sends(v_sends, 'push_token' = any(coalesce(v_types, '{}')));

    return query select f.unit, count(*) from stage_fresh f group by f.unit;
end
$$;


--
-- Name: pushledger_build_indexes(text[]); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_build_indexes(p_build text[]) RETURNS void
    LANGUAGE plpgsql
    AS $$
declare
    v_statement text;
begin
    foreach v_statement in array p_build loop
        execute v_statement;
    end loop;
end
$$;


--
-- Name: pushledger_classified_rollup_rows(text, timestamp with time zone, timestamp with time zone, timestamp with time zone, interval, date, date, text[], text[]); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_classified_rollup_rows(p_app text, p_from timestamp with time zone, p_to timestamp with time zone, p_as_of timestamp with time zone, p_window interval, p_first date, p_last date, p_platforms text[], p_app_versions text[]) RETURNS TABLE(day date, platform text, channel text, app_version text, campaign text, provider text, os_version text, sdk_int integer, standby_bucket text, background_restricted boolean, ignoring_battery_optimizations boolean, low_power_mode boolean, sends bigint, accepted bigint, rejected bigint, pending bigint, opened bigint, received bigint, blocked_app bigint, blocked_channel bigint, unconfirmed bigint, unattributed bigint, token_invalid bigint, to_invalid_token bigint, superseded bigint, app_stopped bigint, expired bigint, device_inactive bigint, unexplained bigint, latency_lt_10s bigint, latency_lt_1m bigint, latency_lt_10m bigint, latency_lt_1h bigint, latency_lt_6h bigint, latency_lt_24h bigint, latency_ge_24h bigint)
    LANGUAGE sql STABLE
    SET jit TO 'off'
    AS $$
with window_slices as (
    -- Keyed so the join hashes: a null app_version is its own slice (chr(1) never is one).
    select i.platform, coalesce(i.app_version, chr(1)) as version_key
      from instrumented_slices_daily i
     where i.app_id = p_app and i.day >= p_first and i.day < p_last
    union
    select u.platform, coalesce(u.app_version, chr(1))
      from unnest(p_platforms, p_app_versions) u(platform, app_version)
), judged as (
    select c.day, c.platform, c.channel, c.app_version, c.campaign, c.provider, c.token_invalid, c.to_invalid_token,
           c.os_version, c.sdk_int, c.standby_bucket, c.background_restricted, c.ignoring_battery_optimizations,
           c.low_power_mode, c.cause, c.latency_bucket,
           case when c.outcome = 'unattributed' and c.snapshot_event_id is not null and c.installation_id is not null
                     and not c.instrumented and w.platform is not null
                then 'unconfirmed' else c.outcome end as outcome
      from pushledger_classified_sends(p_app, p_from, p_to, p_as_of, p_window) c
      left join window_slices w on w.platform = c.platform and w.version_key = coalesce(c.app_version, chr(1))
)
select j.day, j.platform, j.channel, j.app_version, j.campaign, j.provider,
       j.os_version, j.sdk_int, j.standby_bucket, j.background_restricted, j.ignoring_battery_optimizations,
       j.low_power_mode,
       1::bigint, (j.outcome not in ('rejected', 'pending'))::int::bigint, (j.outcome = 'rejected')::int::bigint,
       (j.outcome = 'pending')::int::bigint, (j.outcome = 'opened')::int::bigint, (j.outcome = 'received')::int::bigint,
       (j.outcome = 'blocked_app')::int::bigint, (j.outcome = 'blocked_channel')::int::bigint,
       (j.outcome = 'unconfirmed')::int::bigint, (j.outcome = 'unattributed')::int::bigint,
       j.token_invalid::int::bigint, j.to_invalid_token::int::bigint,
       (j.outcome = 'unconfirmed' and j.cause is not distinct from 'superseded')::int::bigint,
       (j.outcome = 'unconfirmed' and j.cause is not distinct from 'app_stopped')::int::bigint,
       (j.outcome = 'unconfirmed' and j.cause is not distinct from 'expired')::int::bigint,
       (j.outcome = 'unconfirmed' and j.cause is not distinct from 'device_inactive')::int::bigint,
       (j.outcome = 'unconfirmed' and j.cause is not distinct from 'unexplained')::int::bigint,
       (j.latency_bucket is not distinct from 'lt_10s')::int::bigint,
       (j.latency_bucket is not distinct from 'lt_1m')::int::bigint,
       (j.latency_bucket is not distinct from 'lt_10m')::int::bigint,
       (j.latency_bucket is not distinct from 'lt_1h')::int::bigint,
       (j.latency_bucket is not distinct from 'lt_6h')::int::bigint,
       (j.latency_bucket is not distinct from 'lt_24h')::int::bigint,
       (j.latency_bucket is not distinct from 'ge_24h')::int::bigint
  from judged j
$$;


--
-- Name: pushledger_classified_sends(text, timestamp with time zone, timestamp with time zone, timestamp with time zone, interval); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_classified_sends(p_app text, p_from timestamp with time zone, p_to timestamp with time zone, p_as_of timestamp with time zone DEFAULT now(), p_window interval DEFAULT '24:00:00'::interval) RETURNS SETOF public.pushledger_classified_send
    LANGUAGE sql STABLE
    AS $$
    select * from pushledger_classify_sends(p_app, p_from, p_to, p_as_of, p_window, false)
$$;


--
-- Name: pushledger_classify_days(text, date, date, timestamp with time zone, interval, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_classify_days(p_app text, p_from date, p_to date, p_as_of timestamp with time zone, p_window interval, p_into text DEFAULT 'rollup_new'::text) RETURNS void
    LANGUAGE plpgsql
    AS $_$
begin
    execute format(
        'insert into %I select (pushledger_outcome_row(c)).* from pushledger_classify_sends($1, $2, $3, $4, $5, true) c',
        p_into)
    using p_app, p_from::timestamp at time zone 'UTC', p_to::timestamp at time zone 'UTC', p_as_of, p_window;
end
$_$;


--
-- Name: pushledger_classify_send_set(timestamp with time zone, interval); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_classify_send_set(p_as_of timestamp with time zone, p_window interval) RETURNS SETOF public.pushledger_classified_send
    LANGUAGE plpgsql STABLE
    SET enable_hashjoin TO 'off'
    SET enable_mergejoin TO 'off'
    SET jit TO 'off'
    AS $$
begin
return query
with set_sends as materialized (
    select s.app_id, s.event_id, s.notification_id, s.installation_id, s.resolved_by, s.sent_at,
           s.provider, s.token_key, s.channel, s.campaign, s.status, s.reason, s.collapse_id, s.expires_at
      from (select distinct k.app_id, k.sent_at, k.event_id from rollup_send_set k) k
      join sends s on s.app_id = k.app_id and s.sent_at = k.sent_at and s.event_id = k.event_id
     where s.sent_at <= p_as_of
), facts as materialized (
    -- Materialized, as judged: the outcome reads chan_blocked and is_instrumented again, and an
    -- inlined sub-select would look them up twice.
    select w.*, snap.event_id as snap_event_id, snap.app_version as snap_version,
           snap.can_display, snap.authorization_status as snap_authorization,
           snap.os_version as snap_os_version, snap.sdk_int as snap_sdk_int, snap.standby_bucket as snap_standby_bucket,
           snap.background_restricted as snap_background_restricted,
           snap.ignoring_battery_optimizations as snap_ignoring_battery_optimizations,
           snap.low_power_mode as snap_low_power_mode,
           coalesce(snap.platform, i.platform, case w.provider when 'apns' then 'ios' else 'android' end) as send_platform,
           coalesce((select c.blocked from channel_states c
                      where c.app_id = w.app_id and c.occurred_at = snap.occurred_at
                        and c.snapshot_event_id = snap.event_id and c.channel_id = w.channel), false) as chan_blocked,
           coalesce(cf.displayed, false) as has_displayed,
           coalesce(cf.undisplayed, false) as has_undisplayed,
           coalesce(cf.opened, false) as has_open, cf.first_at as first_receipt_at,
           (select max(p.sent_at) from sends p
             where p.app_id = w.app_id and p.provider = w.provider and p.token_key = w.token_key
               and p.sent_at < w.sent_at and pushledger_reason_class(p.status, p.reason) = 'token_invalid') as invalid_at
      from set_sends w
      left join lateral (
            select n.event_id, n.occurred_at, n.platform, n.app_version, n.can_display, n.authorization_status,
                   n.os_version, n.sdk_int, n.standby_bucket, n.background_restricted, n.ignoring_battery_optimizations, n.low_power_mode
              from settings_snapshots n
             where n.app_id = w.app_id and n.installation_id = w.installation_id and n.occurred_at <= w.sent_at
             order by n.occurred_at desc, n.received_at desc, n.event_id desc
             limit 1) snap on true
      left join installations i on i.app_id = w.app_id and i.installation_id = w.installation_id
      left join lateral pushledger_notification_confirmations(w.app_id, w.notification_id, p_as_of) cf on true
), judged as materialized (
    select f.*,
           f.invalid_at is not null and not exists (
               select 1 from token_registrations r
                where r.app_id = f.app_id and r.provider = f.provider and r.token_key = f.token_key
                  and r.occurred_at > f.invalid_at and r.occurred_at <= f.sent_at) as to_invalid,
           exists (select 1 from instrumented_slices_daily sl
                    where sl.app_id = f.app_id and sl.day = pushledger_day(f.sent_at) and sl.platform = f.send_platform
                      and sl.app_version is not distinct from f.snap_version) as is_instrumented
      from facts f
), outcomes as (
    select j.*, pushledger_display_state(j.snap_event_id is not null, j.can_display) as display_state,
           pushledger_judge_send(j.status, j.has_open, j.has_displayed, j.has_undisplayed, j.sent_at, p_as_of, p_window,
                                 pushledger_display_state(j.snap_event_id is not null, j.can_display),
                                 j.chan_blocked, j.installation_id is not null, j.is_instrumented) as outcome
      from judged j
)
select o.app_id, o.event_id, o.notification_id, o.installation_id, o.resolved_by,
       o.sent_at, pushledger_day(o.sent_at), o.provider, o.channel, o.campaign,
       o.status, o.reason, pushledger_reason_class(o.status, o.reason),
       pushledger_reason_class(o.status, o.reason) is not distinct from 'token_invalid', o.to_invalid,
       o.send_platform, o.snap_version, o.snap_event_id, o.display_state, o.snap_authorization,
       o.chan_blocked, o.is_instrumented, o.has_open, o.has_displayed, o.has_undisplayed, o.outcome,
       o.snap_os_version, o.snap_sdk_int, o.snap_standby_bucket, o.snap_background_restricted,
       o.snap_ignoring_battery_optimizations, o.snap_low_power_mode,
       c.cause, c.first_life_at, c.first_life_notification,
       case when o.outcome in ('received', 'opened') then pushledger_latency_bucket(o.sent_at, o.first_receipt_at) end
  from outcomes o
  -- The causes by look-ups of their own: few sends have one (a hash join would read every
  -- telemetry row of the window's installations).
  left join lateral (select * from pushledger_send_cause(o.app_id, o.installation_id, o.notification_id, o.provider,
                                                         o.collapse_id, o.expires_at, o.sent_at, p_as_of)
                      where pushledger_has_cause(o.outcome, o.display_state, o.installation_id is not null,
                                                 o.is_instrumented)) c on true;
end
$$;


--
-- Name: pushledger_classify_sends(text, timestamp with time zone, timestamp with time zone, timestamp with time zone, interval, boolean); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_classify_sends(p_app text, p_from timestamp with time zone, p_to timestamp with time zone, p_as_of timestamp with time zone, p_window interval, p_daily boolean) RETURNS SETOF public.pushledger_classified_send
    LANGUAGE plpgsql STABLE
    SET plan_cache_mode TO 'force_custom_plan'
    SET enable_nestloop TO 'off'
    SET enable_mergejoin TO 'off'
    SET jit TO 'off'
    SET work_mem TO '256MB'
    AS $$
begin
return query
with window_sends as materialized (
    select s.app_id, s.event_id, s.notification_id, s.installation_id, s.resolved_by, s.sent_at,
           s.provider, s.token_key, s.channel, s.campaign, s.status, s.reason, s.collapse_id, s.expires_at
      from sends s
     where s.app_id = p_app and s.sent_at >= p_from and s.sent_at < p_to and s.sent_at <= p_as_of
), snapshot_spans as (
    -- The window's snapshots of the window's installations, each the as-of state from its time
    -- until the next one's (ties at one time: the last by received_at, then event_id,
    -- holds; the others span nothing).
    select n.installation_id, n.event_id, n.occurred_at, n.platform, n.app_version, n.can_display,
           n.authorization_status, n.os_version, n.sdk_int, n.standby_bucket, n.background_restricted, n.ignoring_battery_optimizations, n.low_power_mode,
           lead(n.occurred_at, 1, 'infinity') over (
               partition by n.installation_id order by n.occurred_at, n.received_at, n.event_id) as valid_to
      from settings_snapshots n
     where n.app_id = p_app and n.occurred_at >= p_from and n.occurred_at < p_to
       and n.installation_id in (select w.installation_id from window_sends w)
), window_facts as materialized (
    select w.*, sp.event_id as snap_event_id, sp.platform as snap_platform,
           sp.app_version as snap_version, sp.can_display as snap_can_display,
           sp.authorization_status as snap_authorization,
           sp.os_version as snap_os_version, sp.sdk_int as snap_sdk_int, sp.standby_bucket as snap_standby_bucket,
           sp.background_restricted as snap_background_restricted,
           sp.ignoring_battery_optimizations as snap_ignoring_battery_optimizations,
           sp.low_power_mode as snap_low_power_mode
      from window_sends w
      left join snapshot_spans sp on sp.installation_id = w.installation_id
                                 and w.sent_at >= sp.occurred_at and w.sent_at < sp.valid_to
), earlier_snapshots as materialized (
    -- The latest snapshot before the window, for installations with a send before any of
    -- their snapshots in it (the last 31 days first, then older partitions: a split for partition pruning,
    -- not a bound, as the union reads all of them).
    select i.installation_id, snap.*
      from (select distinct f.installation_id from window_facts f
             where f.snap_event_id is null and f.installation_id is not null) i
     cross join lateral (
            select * from (
                (select n.occurred_at, n.event_id, n.platform, n.app_version,
                        n.can_display, n.authorization_status, n.os_version, n.sdk_int, n.standby_bucket, n.background_restricted, n.ignoring_battery_optimizations, n.low_power_mode
                   from settings_snapshots n
                  where n.app_id = p_app and n.installation_id = i.installation_id
                    and n.occurred_at < p_from and n.occurred_at >= p_from - interval '31 days'
                  order by n.occurred_at desc, n.received_at desc, n.event_id desc
                  limit 1)
                union all
                (select n.occurred_at, n.event_id, n.platform, n.app_version,
                        n.can_display, n.authorization_status, n.os_version, n.sdk_int, n.standby_bucket, n.background_restricted, n.ignoring_battery_optimizations, n.low_power_mode
                   from settings_snapshots n
                  where n.app_id = p_app and n.installation_id = i.installation_id
                    and n.occurred_at < p_from - interval '31 days'
                  order by n.occurred_at desc, n.received_at desc, n.event_id desc
                  limit 1)
            ) candidates
            limit 1) snap
), earlier_channels as materialized (
    -- The blocked channels of the earlier snapshots, by key (a look-up: not flattened into a
    -- hash join over every partition; materialized, so the look-ups' plan does not steer the
    -- joins below).
    select e.installation_id, e.event_id as snapshot_event_id, c.channel_id
      from earlier_snapshots e
     cross join lateral (
            select c.channel_id
              from channel_states c
             where c.app_id = p_app and c.occurred_at = e.occurred_at
               and c.snapshot_event_id = e.event_id and c.installation_id = e.installation_id and c.blocked
            offset 0) c
), snapshot_channels as (
    -- The blocked channels of the window's snapshots by one range read, and of the earlier
    -- ones. Only blocked rows: a send's channel is blocked when its snapshot has a blocked row
    -- for it (one row per snapshot and channel: the primary key), and few channels are, so
    -- the hash is small and the sends probe it.
    select c.installation_id, c.snapshot_event_id, c.channel_id
      from channel_states c
     where c.app_id = p_app and c.occurred_at >= p_from and c.occurred_at < p_to and c.blocked
    union all
    select * from earlier_channels
), confirmations as (
    -- Every receipt and open of these notifications at or before as_of, however late it came.
    -- None can have occurred pushledger_confirmation_lookback() before its send (the contract's
    -- age limits), so one read from there hashes, instead of a look-up per send in every
    -- monthly partition.
    select x.notification_id, min(x.occurred_at) as first_at,
           bool_or(x.is_receipt and x.displayed is distinct from false) as displayed,
           bool_or(x.is_receipt and x.displayed = false) as undisplayed,
           bool_or(not x.is_receipt) as opened
      from (select r.notification_id, true as is_receipt, r.displayed, r.occurred_at
              from notification_receipts r
             where r.app_id = p_app and r.occurred_at >= p_from - pushledger_confirmation_lookback() and r.occurred_at <= p_as_of
            union all
            select o.notification_id, false, null, o.occurred_at
              from notification_opens o
             where o.app_id = p_app and o.occurred_at >= p_from - pushledger_confirmation_lookback() and o.occurred_at <= p_as_of) x
     where x.notification_id in (select w.notification_id from window_sends w)
     group by x.notification_id
), invalidations as (
    -- The latest earlier result that marked each send's token invalid (few sends have one).
    select s.event_id, s.sent_at, max(p.sent_at) as invalid_at
      from window_sends s
      join sends p on p.app_id = p_app and p.provider = s.provider and p.token_key = s.token_key
                  and p.sent_at < s.sent_at and p.sent_at < p_to
                  and pushledger_reason_class(p.status, p.reason) = 'token_invalid'
     group by s.event_id, s.sent_at
), instrumented_slices as materialized (
    -- Keyed so the lookup hashes: a null app_version is its own slice (chr(1) never is one);
    -- per UTC day of the receipt when each day is its own window.
    select distinct case when p_daily then pushledger_day(r.occurred_at) else date '-infinity' end as day_key,
           r.platform, coalesce(r.app_version, chr(1)) as version_key
      from notification_receipts r
     where r.app_id = p_app and r.occurred_at >= p_from and r.occurred_at < p_to
       and r.occurred_at <= p_as_of
), facts as (
    select f.installation_id, f.event_id, f.notification_id, f.resolved_by, f.sent_at, f.provider,
           f.token_key, f.channel, f.campaign, f.status, f.reason, f.collapse_id, f.expires_at,
           coalesce(f.snap_event_id, e.event_id) as snap_event_id,
           case when f.snap_event_id is not null then f.snap_os_version else e.os_version end as snap_os_version,
           case when f.snap_event_id is not null then f.snap_sdk_int else e.sdk_int end as snap_sdk_int,
           case when f.snap_event_id is not null then f.snap_standby_bucket else e.standby_bucket end as snap_standby_bucket,
           case when f.snap_event_id is not null then f.snap_background_restricted else e.background_restricted end
               as snap_background_restricted,
           case when f.snap_event_id is not null then f.snap_ignoring_battery_optimizations
                else e.ignoring_battery_optimizations end as snap_ignoring_battery_optimizations,
           case when f.snap_event_id is not null then f.snap_low_power_mode else e.low_power_mode end as snap_low_power_mode,
           case when f.snap_event_id is not null then f.snap_version else e.app_version end as snap_version,
           case when f.snap_event_id is not null then f.snap_can_display else e.can_display end as can_display,
           case when f.snap_event_id is not null then f.snap_authorization else e.authorization_status end
               as snap_authorization,
           coalesce(case when f.snap_event_id is not null then f.snap_platform else e.platform end,
                    i.platform, case f.provider when 'apns' then 'ios' else 'android' end) as send_platform,
           ch.channel_id is not null as chan_blocked,
           coalesce(cf.displayed, false) as has_displayed,
           coalesce(cf.undisplayed, false) as has_undisplayed,
           coalesce(cf.opened, false) as has_open, cf.first_at as first_receipt_at,
           inv.invalid_at
      from window_facts f
      left join earlier_snapshots e on e.installation_id = f.installation_id and f.snap_event_id is null
      left join installations i on i.app_id = p_app and i.installation_id = f.installation_id
      left join snapshot_channels ch on ch.snapshot_event_id = coalesce(f.snap_event_id, e.event_id)
                                    and ch.installation_id = f.installation_id and ch.channel_id = f.channel
      left join confirmations cf on cf.notification_id = f.notification_id
      left join invalidations inv on inv.event_id = f.event_id and inv.sent_at = f.sent_at
), judged as (
    select f.*,
           f.invalid_at is not null and not exists (
               -- ... not followed by a registration of the token at or before this send.
               select 1 from token_registrations r
                where r.app_id = p_app and r.provider = f.provider and r.token_key = f.token_key
                  and r.occurred_at > f.invalid_at and r.occurred_at <= f.sent_at) as to_invalid,
           sl.platform is not null as is_instrumented
      from facts f
      left join instrumented_slices sl
        on sl.day_key = case when p_daily then pushledger_day(f.sent_at) else date '-infinity' end
       and sl.platform = f.send_platform and sl.version_key = coalesce(f.snap_version, chr(1))
), outcomes as (
    select j.*, pushledger_display_state(j.snap_event_id is not null, j.can_display) as display_state,
           pushledger_judge_send(j.status, j.has_open, j.has_displayed, j.has_undisplayed, j.sent_at, p_as_of, p_window,
                                 pushledger_display_state(j.snap_event_id is not null, j.can_display),
                                 j.chan_blocked, j.installation_id is not null, j.is_instrumented) as outcome
      from judged j
)
select p_app, o.event_id, o.notification_id, o.installation_id, o.resolved_by,
       o.sent_at, pushledger_day(o.sent_at), o.provider, o.channel, o.campaign,
       o.status, o.reason, pushledger_reason_class(o.status, o.reason),
       pushledger_reason_class(o.status, o.reason) is not distinct from 'token_invalid', o.to_invalid,
       o.send_platform, o.snap_version, o.snap_event_id, o.display_state, o.snap_authorization,
       o.chan_blocked, o.is_instrumented, o.has_open, o.has_displayed, o.has_undisplayed, o.outcome,
       o.snap_os_version, o.snap_sdk_int, o.snap_standby_bucket, o.snap_background_restricted,
       o.snap_ignoring_battery_optimizations, o.snap_low_power_mode,
       c.cause, c.first_life_at, c.first_life_notification,
       case when o.outcome in ('received', 'opened') then pushledger_latency_bucket(o.sent_at, o.first_receipt_at) end
  from outcomes o
  -- The causes by look-ups of their own: few sends have one (a hash join would read every
  -- telemetry row of the window's installations).
  left join lateral (select * from pushledger_send_cause(p_app, o.installation_id, o.notification_id, o.provider,
                                                         o.collapse_id, o.expires_at, o.sent_at, p_as_of)
                      where pushledger_has_cause(o.outcome, o.display_state, o.installation_id is not null,
                                                 o.is_instrumented)) c on true;
end
$$;


--
-- Name: pushledger_confirmation_lookback(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_confirmation_lookback() RETURNS interval
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ select interval '32 days' $$;


--
-- Name: pushledger_create_partition(text, text, text, timestamp with time zone, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_create_partition(p_table text, p_time_column text, p_name text, p_from timestamp with time zone, p_to timestamp with time zone) RETURNS text
    LANGUAGE plpgsql
    SET "TimeZone" TO 'UTC'
    AS $_$
declare
    v_moved text := p_name || '_moving';
    v_columns text;
begin
    execute format(
        'create temp table %I on commit drop as with d as (delete from %I where %I >= $1 and %I < $2 returning *) select * from d',
        v_moved, p_table || '_default', p_time_column, p_time_column)
        using p_from, p_to;
    execute format('create table %I partition of %I for values from (%L) to (%L)', p_name, p_table, p_from, p_to);
    -- Generated columns are recomputed, not copied.
    select string_agg(quote_ident(attname), ', ' order by attnum) into v_columns
      from pg_attribute
     where attrelid = p_table::regclass and attnum > 0 and not attisdropped and attgenerated = '';
    execute format('insert into %I (%s) select %s from %I', p_name, v_columns, v_columns, v_moved);
    execute format('drop table %I', v_moved);
    return p_name;
end
$_$;


--
-- Name: pushledger_create_staging(boolean); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_create_staging(p_toast boolean DEFAULT false) RETURNS void
    LANGUAGE plpgsql
    AS $$
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


--
-- Name: pushledger_day(timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_day(p_time timestamp with time zone) RETURNS date
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ select (p_time at time zone 'UTC')::date $$;


--
-- Name: pushledger_day_runs(text[], date[]); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_day_runs(p_apps text[], p_days date[]) RETURNS TABLE(app_id text, first_day date, last_day date)
    LANGUAGE sql IMMUTABLE
    AS $$
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


--
-- Name: pushledger_display_state(boolean, boolean); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_display_state(p_has_snapshot boolean, p_can_display boolean) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
select case when not p_has_snapshot then 'unknown' when p_can_display then 'can_display' else 'cannot_display' end
$$;


--
-- Name: pushledger_drop_indexes(regclass); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_drop_indexes(p_table regclass) RETURNS text[]
    LANGUAGE plpgsql
    AS $$
declare
    v_build text[] := '{}';
    v_index record;
begin
    for v_index in
        -- Keys first (they own their indexes), then the other indexes.
        select format('alter table %s add constraint %I %s', p_table, c.conname, pg_get_constraintdef(c.oid)) as build,
               format('alter table %s drop constraint %I', p_table, c.conname) as drop
          from pg_constraint c where c.conrelid = p_table and c.contype in ('p', 'u')
        union all
        select pg_get_indexdef(i.indexrelid), format('drop index %s', i.indexrelid::regclass)
          from pg_index i
         where i.indrelid = p_table and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid)
    loop
        v_build := v_build || v_index.build;
        execute v_index.drop;
    end loop;
    return v_build;
end
$$;


--
-- Name: pushledger_drop_partitions_before(timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_drop_partitions_before(p_cutoff timestamp with time zone) RETURNS SETOF text
    LANGUAGE plpgsql
    AS $$
declare
    v_name text;
begin
    for v_name in
        select r.partition_name from pushledger_partition_ranges() r where r.upper_bound <= p_cutoff order by r.partition_name
    loop
        execute format('drop table %I', v_name);
        return next v_name;
    end loop;
end
$$;


--
-- Name: pushledger_ensure_partitions(timestamp with time zone, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_ensure_partitions(p_from timestamp with time zone, p_to timestamp with time zone) RETURNS SETOF text
    LANGUAGE plpgsql
    SET "TimeZone" TO 'UTC'
    AS $$
declare
    v_daily boolean := pushledger_partition_granularity() = 'daily';
    v_unit text := case when v_daily then 'day' else 'month' end;
    v_step interval := case when v_daily then interval '1 day' else interval '1 month' end;
    v_format text := case when v_daily then 'YYYY_MM_DD' else 'YYYY_MM' end;
    v_start timestamptz;
    v_day timestamptz;
    v_t record;
    v_covered interval;
    v_locked boolean := false;
begin
    if p_from is null or p_to is null or p_to < p_from then
        return;
    end if;
    for v_start in
        select generate_series(date_trunc(v_unit, p_from at time zone 'UTC'), date_trunc(v_unit, p_to at time zone 'UTC'), v_step)
               at time zone 'UTC'
    loop
        for v_t in select * from pushledger_partitioned_tables() loop
            continue when to_regclass(format('%s_p%s', v_t.table_name, to_char(v_start at time zone 'UTC', v_format))) is not null;
            -- Covered by partitions of the other granularity? (No lock needed to find out.)
            select coalesce(sum(least(r.upper_bound, v_start + v_step) - greatest(r.lower_bound, v_start)), interval '0')
              into v_covered
              from pushledger_partition_ranges() r
             where r.table_name = v_t.table_name and r.lower_bound < v_start + v_step and r.upper_bound > v_start;
            continue when v_covered >= (v_start + v_step) - v_start;
            if not v_locked then
                -- Serialise creators (writers, cron, retention) so concurrent calls don't race.
                perform pg_advisory_xact_lock(hashtext('pushledger_ensure_partitions'));
                v_locked := true;
            end if;
            -- With the lock, from the catalog afresh (another writer may have just committed it).
            if not exists (select 1 from pushledger_partition_ranges() r
                            where r.table_name = v_t.table_name and r.lower_bound < v_start + v_step and r.upper_bound > v_start) then
                return next pushledger_create_partition(
                    v_t.table_name, v_t.time_column, format('%s_p%s', v_t.table_name, to_char(v_start at time zone 'UTC', v_format)),
                    v_start, v_start + v_step);
                continue;
            end if;
            for v_day in select generate_series(v_start, v_start + v_step - interval '1 day', interval '1 day') loop
                continue when exists (select 1 from pushledger_partition_ranges() r
                                       where r.table_name = v_t.table_name and r.lower_bound < v_day + interval '1 day'
                                         and r.upper_bound > v_day);
                return next pushledger_create_partition(
                    v_t.table_name, v_t.time_column, format('%s_p%s', v_t.table_name, to_char(v_day at time zone 'UTC', 'YYYY_MM_DD')),
                    v_day, v_day + interval '1 day');
            end loop;
        end loop;
    end loop;
end
$$;


--
-- Name: pushledger_erase(text, uuid, text, boolean); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_erase(p_app text, p_installation uuid, p_token text, p_search_raw boolean DEFAULT false) RETURNS TABLE(erased_from text, erased_rows bigint)
    LANGUAGE plpgsql
    AS $$
declare
    v_rows bigint;
    v_failed bigint;
begin
    if (p_installation is null) = (p_token is null) then
        raise exception 'pushledger_erase: give an installation or a token';
    end if;
    if p_search_raw and length(p_token) < pushledger_erase_min_search() then
        raise exception 'pushledger_erase: a token searched for in raw text needs at least % characters', pushledger_erase_min_search();
    end if;
    drop table if exists erase_tokens, erase_sends;
    create temp table erase_tokens (provider text, token text, token_key uuid) on commit drop;
    insert into erase_tokens select * from pushledger_erase_tokens(p_app, p_installation, p_token);
    v_failed := pushledger_erase_failed_events(p_app, p_installation, p_token, p_search_raw);

    lock table event_ids in share row exclusive mode;
    -- Tokens of the batches committed since the first look.
    insert into erase_tokens select * from pushledger_erase_tokens(p_app, p_installation, p_token)
    except select * from erase_tokens;

    create temp table erase_sends on commit drop as
    select s.notification_id, s.sent_at from sends s
     where s.app_id = p_app
       and (s.installation_id = p_installation
            or exists (select 1 from erase_tokens t where t.provider = s.provider and t.token_key = s.token_key and t.token = s.token
                        and (s.installation_id is null or p_token is not null)));

    -- Receipts and opens: the installation's own, and those of the erased notifications.
    insert into rollup_dirty_days (app_id, day)
    select distinct p_app, pushledger_day(occurred_at) from (
        select occurred_at from notification_receipts r
         where r.app_id = p_app and (r.installation_id = p_installation
               or r.notification_id in (select notification_id from erase_sends))
        union all
        select occurred_at from notification_opens o
         where o.app_id = p_app and (o.installation_id = p_installation
               or o.notification_id in (select notification_id from erase_sends))
    ) confirmations order by 1, 2;

    delete from notification_receipts r where r.app_id = p_app
       and (r.installation_id = p_installation or r.notification_id in (select notification_id from erase_sends));
    get diagnostics v_rows = row_count; erased_from := 'notification_receipts'; erased_rows := v_rows; return next;
    delete from notification_opens o where o.app_id = p_app
       and (o.installation_id = p_installation or o.notification_id in (select notification_id from erase_sends));
    get diagnostics v_rows = row_count; erased_from := 'notification_opens'; erased_rows := v_rows; return next;
    delete from sends s where s.app_id = p_app
       and (s.installation_id = p_installation
            or exists (select 1 from erase_tokens t where t.provider = s.provider and t.token_key = s.token_key and t.token = s.token
                        and (s.installation_id is null or p_token is not null)));
    get diagnostics v_rows = row_count; erased_from := 'sends'; erased_rows := v_rows; return next;
    delete from token_registrations r where r.app_id = p_app
       and (r.installation_id = p_installation or r.token_key = md5(p_token)::uuid and r.token = p_token);
    get diagnostics v_rows = row_count; erased_from := 'token_registrations'; erased_rows := v_rows; return next;
    delete from push_tokens k where k.app_id = p_app
       and (k.installation_id = p_installation or k.token_key = md5(p_token)::uuid and k.token = p_token);
    get diagnostics v_rows = row_count; erased_from := 'push_tokens'; erased_rows := v_rows; return next;
    -- The invalid-token feed names tokens too.
    delete from token_invalidations v where v.app_id = p_app
       and exists (select 1 from erase_tokens t where t.provider = v.provider and t.token_key = v.token_key and t.token = v.token);
    get diagnostics v_rows = row_count; erased_from := 'token_invalidations'; erased_rows := v_rows; return next;
    delete from settings_snapshots where app_id = p_app and installation_id = p_installation;
    get diagnostics v_rows = row_count; erased_from := 'settings_snapshots'; erased_rows := v_rows; return next;
    delete from channel_states where app_id = p_app and installation_id = p_installation;
    get diagnostics v_rows = row_count; erased_from := 'channel_states'; erased_rows := v_rows; return next;
    delete from permission_prompts where app_id = p_app and installation_id = p_installation;
    get diagnostics v_rows = row_count; erased_from := 'permission_prompts'; erased_rows := v_rows; return next;
    delete from experiment_exposures where app_id = p_app and installation_id = p_installation;
    get diagnostics v_rows = row_count; erased_from := 'experiment_exposures'; erased_rows := v_rows; return next;
    delete from installations where app_id = p_app and installation_id = p_installation;
    get diagnostics v_rows = row_count; erased_from := 'installations'; erased_rows := v_rows; return next;
    -- Failed events of the batches committed since the first pass: by column only, under the lock.
    v_failed := v_failed + pushledger_erase_failed_events(p_app, p_installation, p_token, false);
    erased_from := 'failed_events'; erased_rows := v_failed; return next;

    perform pg_advisory_xact_lock(hashtext('pushledger_refresh_prompt_rollups'));
    -- As of the as_of the members hold, so every other row stays as of the last refresh.
    perform pushledger_apply_prompt_members(coalesce((select s.as_of from prompt_rollup_state s), now()), p_app, array[p_installation])
     where p_installation is not null;
    delete from prompt_rollup_dirty_installations where app_id = p_app and installation_id = p_installation;

    insert into erasures (app_id, subject, subject_hash)
    values (p_app, case when p_token is null then 'installation' else 'token' end,
            sha256(convert_to(coalesce(p_installation::text, p_token), 'UTF8')))
    on conflict (app_id, subject, subject_hash) do update set last_erased_at = now(), runs = erasures.runs + 1;
end
$$;


--
-- Name: pushledger_erase_failed_events(text, uuid, text, boolean); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_erase_failed_events(p_app text, p_installation uuid, p_token text, p_search_raw boolean) RETURNS bigint
    LANGUAGE plpgsql
    AS $$
declare
    v_rows bigint;
begin
    delete from failed_events f
     where f.app_id = p_app
       and (f.installation_id = p_installation
            or f.token is not null
               and (md5(f.token)::uuid = md5(p_token)::uuid and f.token = p_token
                    or exists (select 1 from erase_tokens t where md5(f.token)::uuid = t.token_key and f.token = t.token))
            or p_search_raw
               and (strpos(lower(f.raw_json), lower(p_installation::text)) > 0
                    or strpos(lower(f.raw_json), lower(p_token)) > 0
                    or exists (select 1 from erase_tokens t
                                where length(t.token) >= pushledger_erase_min_search() and strpos(lower(f.raw_json), lower(t.token)) > 0)));
    get diagnostics v_rows = row_count;
    return v_rows;
end
$$;


--
-- Name: pushledger_erase_min_search(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_erase_min_search() RETURNS integer
    LANGUAGE sql IMMUTABLE
    AS $$ select 16 $$;


--
-- Name: pushledger_erase_tokens(text, uuid, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_erase_tokens(p_app text, p_installation uuid, p_token text) RETURNS TABLE(provider text, token text, token_key uuid)
    LANGUAGE sql STABLE
    AS $$
    select p.provider, f.token, md5(f.token)::uuid from failed_events f cross join (values ('apns'), ('fcm')) p (provider)
     where f.app_id = p_app and f.installation_id = p_installation and f.token is not null
    union
    select distinct provider, token, token_key from token_registrations
     where app_id = p_app and (installation_id = p_installation or token_key = md5(p_token)::uuid and token = p_token)
    union
    select provider, token, token_key from push_tokens
     where app_id = p_app and (installation_id = p_installation or token_key = md5(p_token)::uuid and token = p_token)
    union
    select distinct provider, token, token_key from sends
     where app_id = p_app and token_key = md5(p_token)::uuid and token = p_token
$$;


--
-- Name: pushledger_fired_alerts(text, timestamp with time zone, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_fired_alerts(p_app text, p_from timestamp with time zone, p_to timestamp with time zone) RETURNS TABLE(rule text, slice text, at timestamp with time zone, current_rate double precision, baseline_rate double precision, delta_pp double precision, p_value double precision, message text)
    LANGUAGE plpgsql STABLE
    AS $_$
begin
    if to_regclass('alert_transitions') is null then
        return;
    end if;
    return query execute
        'select a.rule, a.slice::text, a.at, a.current_rate, a.baseline_rate, a.delta_pp, a.p_value, a.message
           from alert_transitions a
          where a.app_id = $1 and a.state = ''firing'' and a.at >= $2 and a.at < $3
          order by a.at, a.id'
        using p_app, p_from, p_to;
end
$_$;


--
-- Name: pushledger_first_invalidation(text, text, uuid, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_first_invalidation(p_app text, p_provider text, p_token_key uuid, p_registered_at timestamp with time zone) RETURNS TABLE(sent_at timestamp with time zone, status integer, reason text, unregistered_at timestamp with time zone)
    LANGUAGE sql STABLE
    AS $$
    select s.sent_at, s.status, s.reason, s.unregistered_at from sends s
     where s.app_id = p_app and s.provider = p_provider and s.token_key = p_token_key
       and pushledger_reason_class(s.status, s.reason) = 'token_invalid'
       and (p_registered_at is null or s.sent_at > p_registered_at)
     order by s.sent_at, s.event_id
     limit 1
$$;


--
-- Name: pushledger_first_sign_of_life(text, uuid, timestamp with time zone, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_first_sign_of_life(p_app text, p_installation uuid, p_after timestamp with time zone, p_as_of timestamp with time zone) RETURNS TABLE(occurred_at timestamp with time zone, kind text, notification_id uuid, force_stopped boolean)
    LANGUAGE sql STABLE
    AS $$
select l.occurred_at, l.kind, l.notification_id, l.force_stopped
  from ((select n.occurred_at, n.received_at, n.event_id, 'settings' as kind, null::uuid as notification_id,
                n.force_stopped_before_start as force_stopped
           from settings_snapshots n
          where n.app_id = p_app and n.installation_id = p_installation and n.occurred_at > p_after and n.occurred_at <= p_as_of
          order by n.occurred_at, n.received_at, n.event_id limit 1)
        union all
        (select r.occurred_at, r.received_at, r.event_id, 'receipt', r.notification_id, null
           from notification_receipts r
          where r.app_id = p_app and r.installation_id = p_installation and r.occurred_at > p_after and r.occurred_at <= p_as_of
          order by r.occurred_at, r.received_at, r.event_id limit 1)
        union all
        (select o.occurred_at, o.received_at, o.event_id, 'receipt', o.notification_id, null
           from notification_opens o
          where o.app_id = p_app and o.installation_id = p_installation and o.occurred_at > p_after and o.occurred_at <= p_as_of
          order by o.occurred_at, o.received_at, o.event_id limit 1)
        union all
        (select p.occurred_at, p.received_at, p.event_id, 'other', null, null
           from permission_prompts p
          where p.app_id = p_app and p.installation_id = p_installation and p.occurred_at > p_after and p.occurred_at <= p_as_of
          order by p.occurred_at, p.received_at, p.event_id limit 1)
        union all
        (select e.occurred_at, e.received_at, e.event_id, 'other', null, null
           from experiment_exposures e
          where e.app_id = p_app and e.installation_id = p_installation and e.occurred_at > p_after and e.occurred_at <= p_as_of
          order by e.occurred_at, e.received_at, e.event_id limit 1)
        union all
        (select t.occurred_at, t.received_at, t.event_id, 'other', null, null
           from token_registrations t
          where t.app_id = p_app and t.installation_id = p_installation and t.occurred_at > p_after and t.occurred_at <= p_as_of
          order by t.occurred_at, t.received_at, t.event_id limit 1)) l
 order by l.occurred_at, l.received_at, l.event_id
 limit 1
$$;


--
-- Name: pushledger_group_prompt_days(timestamp with time zone, text, text[], date[]); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_group_prompt_days(p_as_of timestamp with time zone, p_app text, p_experiments text[], p_days date[]) RETURNS void
    LANGUAGE sql
    AS $$
    delete from prompt_cohorts_daily r
     using unnest(p_experiments, p_days) g (experiment, day)
     where r.app_id = p_app and r.day = g.day and coalesce(r.experiment, '') = g.experiment;
    insert into prompt_cohorts_daily
    select p_app, nullif(m.experiment, ''), m.day, m.cohort, m.platform, count(*),
           count(m.first_prompt_at),
           count(*) filter (where m.first_prompt_result = 'granted'),
           count(*) filter (where m.first_prompt_result = 'provisional'),
           count(*) filter (where m.can_display_now),
           count(*) filter (where m.can_display_now and m.first_prompt_at is null),
           count(*) filter (where m.retained_eligible),
           count(*) filter (where m.retained),
           coalesce(array_agg(h.hours order by h.hours) filter (where m.first_prompt_at is not null), '{}'),
           p_as_of, now()
      from unnest(p_experiments, p_days) g (experiment, day)
      join prompt_cohort_members m on m.app_id = p_app and m.experiment = g.experiment and m.day = g.day
     cross join lateral (
           select (extract(epoch from m.first_prompt_at - m.first_event_at) / 3600)::double precision as hours) h
     group by m.experiment, m.day, m.cohort, m.platform
$$;


--
-- Name: pushledger_has_cause(text, text, boolean, boolean); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_has_cause(p_outcome text, p_display_state text, p_installation_known boolean, p_instrumented boolean) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
select p_outcome = 'unconfirmed'
    or (p_outcome = 'unattributed' and p_display_state <> 'unknown' and p_installation_known and not p_instrumented)
$$;


--
-- Name: pushledger_invalid_tokens(text, timestamp with time zone, xid8, text, uuid, xid8, integer); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_invalid_tokens(p_app text, p_since timestamp with time zone, p_after_xid xid8, p_after_provider text, p_after_key uuid, p_horizon xid8, p_limit integer) RETURNS TABLE(provider text, token text, invalidated_at timestamp with time zone, status integer, reason text, unregistered_at timestamp with time zone, installation_id uuid, feed_xid xid8, token_key uuid)
    LANGUAGE sql STABLE
    AS $$
    select t.provider, t.token, t.invalidated_at, t.status, t.reason, t.unregistered_at, p.installation_id,
           t.feed_xid, t.token_key
      from token_invalidations t
      left join push_tokens p on p.app_id = t.app_id and p.provider = t.provider and p.token_key = t.token_key
     where t.app_id = p_app
       and (t.feed_xid, t.provider, t.token_key) > (p_after_xid, p_after_provider, p_after_key)
       and t.feed_xid < p_horizon
       and (p_since is null or t.invalidated_at >= p_since)
     order by t.feed_xid, t.provider, t.token_key
     limit p_limit
$$;


--
-- Name: pushledger_invalid_tokens_horizon(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_invalid_tokens_horizon() RETURNS xid8
    LANGUAGE sql
    AS $$ select pg_snapshot_xmin(pg_current_snapshot()) $$;


--
-- Name: pushledger_judge_send(integer, boolean, boolean, boolean, timestamp with time zone, timestamp with time zone, interval, text, boolean, boolean, boolean); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_judge_send(p_status integer, p_opened boolean, p_displayed boolean, p_undisplayed boolean, p_sent_at timestamp with time zone, p_as_of timestamp with time zone, p_window interval, p_display_state text, p_channel_blocked boolean, p_installation_known boolean, p_instrumented boolean) RETURNS text
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$
select case
    when p_status not between 200 and 299 then 'rejected'
    when p_opened then 'opened'
    when p_displayed then 'received'
    when not p_undisplayed and p_sent_at > p_as_of - p_window then 'pending'
    when p_display_state = 'cannot_display' then 'blocked_app'
    when p_display_state <> 'unknown' and p_channel_blocked then 'blocked_channel'
    when p_undisplayed then 'received'
    when p_display_state = 'unknown' or not p_installation_known or not p_instrumented then 'unattributed'
    else 'unconfirmed'
end
$$;


--
-- Name: pushledger_latency_bucket(timestamp with time zone, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_latency_bucket(p_sent_at timestamp with time zone, p_first_receipt_at timestamp with time zone) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
select case
    when p_first_receipt_at is null then null
    when p_first_receipt_at - p_sent_at < interval '10 seconds' then 'lt_10s'
    when p_first_receipt_at - p_sent_at < interval '1 minute' then 'lt_1m'
    when p_first_receipt_at - p_sent_at < interval '10 minutes' then 'lt_10m'
    when p_first_receipt_at - p_sent_at < interval '1 hour' then 'lt_1h'
    when p_first_receipt_at - p_sent_at < interval '6 hours' then 'lt_6h'
    when p_first_receipt_at - p_sent_at < interval '24 hours' then 'lt_24h'
    else 'ge_24h'
end
$$;


--
-- Name: pushledger_link_host(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_link_host(p_link text) RETURNS text
    LANGUAGE sql IMMUTABLE
    AS $$
select lower(substring(p_link from '^[hH][tT][tT][pP][sS]?://(?:[^/?#@]*@)?([^/?#:]+)'))
$$;


--
-- Name: pushledger_link_host_landings(text, timestamp with time zone, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_link_host_landings(p_app text, p_from timestamp with time zone, p_to timestamp with time zone) RETURNS TABLE(host text, opens bigint, landed_reported bigint, misrouted bigint, checked_at timestamp with time zone, failed_checks bigint, verdict text)
    LANGUAGE sql STABLE
    AS $$
with hosts as (
    select pushledger_link_host(o.link) as host, count(*) as opens, count(o.landed) as landed_reported,
           count(*) filter (where o.landed in ('fallback', 'rejected')) as misrouted
      from notification_opens o
     where o.app_id = p_app and o.occurred_at >= p_from and o.occurred_at < p_to
       and pushledger_link_host(o.link) is not null
     group by 1)
select h.host, h.opens, h.landed_reported, h.misrouted, c.checked_at, c.failed, c.verdict
  from hosts h
  left join lateral (
        select max(l.checked_at) as checked_at, count(*) filter (where not l.passed) as failed,
               coalesce(string_agg(l.check_name || case when l.subject = '' then '' else ' ' || l.subject end
                                   || ': ' || l.verdict, '; ' order by l.id) filter (where not l.passed), 'pass') as verdict
          from (select r.* from link_check_results r
                 where r.app_id = p_app and r.domain = h.host
                   and r.checked_at = (select max(x.checked_at) from link_check_results x
                                        where x.app_id = p_app and x.domain = h.host)) l
        having count(*) > 0) c on true
 order by h.opens desc, h.host
$$;


--
-- Name: pushledger_mark_dirty_prompt_installation(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_mark_dirty_prompt_installation() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
begin
    insert into prompt_rollup_dirty_installations (app_id, installation_id, due_at)
    values (new.app_id, new.installation_id, '-infinity');
    return null;
end
$$;


--
-- Name: pushledger_mark_dirty_prompt_members(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_mark_dirty_prompt_members() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
begin
    insert into prompt_rollup_dirty_installations (app_id, installation_id, due_at)
    select app_id, installation_id, max(occurred_at)
      from changed_rows group by 1, 2 order by 1, 2;
    return null;
end
$$;


--
-- Name: pushledger_mark_rollups_dirty(text, date, date); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_mark_rollups_dirty(p_app text, p_from date, p_to date) RETURNS void
    LANGUAGE sql
    AS $$
    insert into rollup_dirty_days (app_id, day)
    select p_app, d::date from generate_series(p_from, p_to, interval '1 day') d
$$;


--
-- Name: pushledger_notification_confirmations(text, uuid, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_notification_confirmations(p_app text, p_notification uuid, p_as_of timestamp with time zone) RETURNS TABLE(displayed boolean, undisplayed boolean, opened boolean, first_at timestamp with time zone)
    LANGUAGE sql STABLE
    AS $$
select bool_or(x.is_receipt and x.displayed is distinct from false),
       bool_or(x.is_receipt and x.displayed = false),
       bool_or(not x.is_receipt),
       min(x.occurred_at)
  from (select true as is_receipt, r.displayed, r.occurred_at from notification_receipts r
         where r.app_id = p_app and r.notification_id = p_notification and r.occurred_at <= p_as_of
        union all
        select false, null, o.occurred_at from notification_opens o
         where o.app_id = p_app and o.notification_id = p_notification and o.occurred_at <= p_as_of) x
$$;


--
-- Name: pushledger_open_landings(text, timestamp with time zone, timestamp with time zone, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_open_landings(p_app text, p_from timestamp with time zone, p_to timestamp with time zone, p_as_of timestamp with time zone DEFAULT now()) RETURNS TABLE(channel text, campaign text, day date, opens bigint, landed_reported bigint, misrouted bigint)
    LANGUAGE sql STABLE
    AS $$
with opens as materialized (
    select o.notification_id, o.landed
      from notification_opens o
     where o.app_id = p_app and o.occurred_at >= p_from - pushledger_confirmation_lookback() and o.occurred_at <= p_as_of
), latest as (
    select distinct on (s.notification_id) s.notification_id, s.event_id, s.sent_at, s.channel, s.campaign
      from sends s
     where s.app_id = p_app and s.sent_at >= p_from and s.sent_at < p_to and s.sent_at <= p_as_of
       and s.notification_id in (select o.notification_id from opens o)
     order by s.notification_id, s.sent_at desc, s.event_id desc
), notifications as (
    select l.* from latest l
     where not exists (
            select 1 from sends x
             where x.app_id = p_app and x.notification_id = l.notification_id and x.sent_at <= p_as_of
               and (x.sent_at, x.event_id) > (l.sent_at, l.event_id))
)
select n.channel, n.campaign, pushledger_day(n.sent_at), count(*), count(o.landed),
       count(*) filter (where o.landed in ('fallback', 'rejected'))
  from notifications n
  join opens o on o.notification_id = n.notification_id
 group by 1, 2, 3
 order by 1, 2, 3
$$;


--
-- Name: pushledger_outcome_rates(text[], boolean[]); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_outcome_rates(p_outcomes text[], p_token_invalid boolean[]) RETURNS TABLE(rate text, numerator bigint, denominator bigint, value double precision, low_volume boolean)
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
select r.*
  from (select count(*) as sends,
               count(*) filter (where u.outcome not in ('rejected', 'pending')) as accepted,
               count(*) filter (where u.outcome = 'rejected') as rejected,
               count(*) filter (where u.outcome = 'opened') as opened,
               count(*) filter (where u.outcome = 'received') as received,
               count(*) filter (where u.outcome = 'blocked_app') as blocked_app,
               count(*) filter (where u.outcome = 'blocked_channel') as blocked_channel,
               count(*) filter (where u.outcome = 'unconfirmed') as unconfirmed,
               count(*) filter (where u.token_invalid) as token_invalid
          from unnest(p_outcomes, p_token_invalid) u(outcome, token_invalid)) c
 cross join lateral pushledger_rates(c.sends, c.accepted, c.rejected, c.opened, c.received, c.blocked_app,
                                     c.blocked_channel, c.unconfirmed, c.token_invalid) r
$$;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: send_outcomes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.send_outcomes (
    app_id text NOT NULL,
    sent_at timestamp with time zone NOT NULL,
    event_id uuid NOT NULL,
    day date NOT NULL,
    notification_id uuid NOT NULL,
    installation_id uuid,
    provider text NOT NULL,
    channel text NOT NULL,
    campaign text,
    status integer NOT NULL,
    reason text,
    reason_class text,
    token_invalid boolean NOT NULL,
    to_invalid_token boolean NOT NULL,
    platform text NOT NULL,
    app_version text,
    display_state text NOT NULL,
    channel_blocked boolean NOT NULL,
    instrumented boolean NOT NULL,
    opened boolean NOT NULL,
    received_displayed boolean NOT NULL,
    received_undisplayed boolean NOT NULL,
    outcome text NOT NULL,
    os_version text,
    sdk_int integer,
    standby_bucket text,
    background_restricted boolean,
    ignoring_battery_optimizations boolean,
    low_power_mode boolean,
    cause text,
    first_life_at timestamp with time zone,
    first_life_notification uuid,
    latency_bucket text
);


--
-- Name: pushledger_outcome_row(public.pushledger_classified_send); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_outcome_row(c public.pushledger_classified_send) RETURNS public.send_outcomes
    LANGUAGE sql IMMUTABLE
    AS $$
    select row(c.app_id, c.sent_at, c.event_id, c.day, c.notification_id, c.installation_id, c.provider, c.channel,
               c.campaign, c.status, c.reason, c.reason_class, c.token_invalid, c.to_invalid_token, c.platform,
               c.app_version, c.display_state, c.channel_blocked, c.instrumented, c.opened, c.received_displayed,
               c.received_undisplayed, c.outcome, c.os_version, c.sdk_int, c.standby_bucket, c.background_restricted,
               c.ignoring_battery_optimizations, c.low_power_mode, c.cause, c.first_life_at, c.first_life_notification,
               c.latency_bucket)::send_outcomes
$$;


--
-- Name: pushledger_partition_granularity(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_partition_granularity() RETURNS text
    LANGUAGE sql STABLE
    AS $$
    select coalesce((select partition_granularity from pushledger_settings), 'monthly')
$$;


--
-- Name: pushledger_partition_ranges(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_partition_ranges() RETURNS TABLE(table_name text, partition_name text, lower_bound timestamp with time zone, upper_bound timestamp with time zone)
    LANGUAGE sql STABLE
    AS $$
    select p.table_name, c.relname::text, r.bounds[1]::timestamptz, r.bounds[2]::timestamptz
      from pushledger_partitioned_tables() p
      join pg_inherits i on i.inhparent = p.table_name::regclass
      join pg_class c on c.oid = i.inhrelid
     cross join lateral regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \(''([^'']+)''\) TO \(''([^'']+)''\)') r(bounds)
     where r.bounds is not null  -- not the DEFAULT partition
$$;


--
-- Name: pushledger_partitioned_tables(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_partitioned_tables() RETURNS TABLE(table_name text, time_column text)
    LANGUAGE sql IMMUTABLE
    AS $$
    values ('sends', 'sent_at'), ('settings_snapshots', 'occurred_at'), ('channel_states', 'occurred_at'),
           ('notification_receipts', 'occurred_at'), ('notification_opens', 'occurred_at')
$$;


--
-- Name: pushledger_prompt_cohort_members(text, timestamp with time zone, timestamp with time zone, timestamp with time zone, text, boolean, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_prompt_cohort_members(p_app text, p_from timestamp with time zone, p_to timestamp with time zone, p_as_of timestamp with time zone DEFAULT now(), p_experiment text DEFAULT 'push_prompt_timing'::text, p_as_treated boolean DEFAULT false, p_platform text DEFAULT NULL::text) RETURNS TABLE(cohort text, installation_id uuid, platform text, first_event_at timestamp with time zone, first_prompt_at timestamp with time zone, first_prompt_result text, can_display_now boolean, retained_eligible boolean, retained boolean)
    LANGUAGE plpgsql STABLE
    SET plan_cache_mode TO 'force_custom_plan'
    SET jit TO 'off'
    AS $$
declare
    v_ids uuid[];
begin
    select coalesce(array_agg(distinct c.id), '{}') into v_ids from (
        select e.installation_id as id from experiment_exposures e
         where not p_as_treated and e.app_id = p_app and e.experiment = p_experiment
           and e.occurred_at >= p_from and e.occurred_at < p_to and e.occurred_at <= p_as_of
        union all
        select p.installation_id from permission_prompts p
         where p_as_treated and p.app_id = p_app and pushledger_shown_system_prompt(p.prompt, p.result)
           and p.occurred_at >= p_from and p.occurred_at < p_to and p.occurred_at <= p_as_of
    ) c;
    return query
    select m.cohort, m.installation_id, m.platform, m.first_event_at, m.first_prompt_at, m.first_prompt_result,
           m.can_display_now, m.retained_eligible, m.retained
      from pushledger_prompt_member_facts(p_as_of, p_app, v_ids) m
     where m.experiment = case when p_as_treated then '' else p_experiment end
       and m.joined_at >= p_from and m.joined_at < p_to
       and (p_platform is null or m.platform = p_platform);
end
$$;


--
-- Name: pushledger_prompt_cohort_sends(text, timestamp with time zone, timestamp with time zone, timestamp with time zone, interval, text, boolean, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_prompt_cohort_sends(p_app text, p_from timestamp with time zone, p_to timestamp with time zone, p_as_of timestamp with time zone DEFAULT now(), p_window interval DEFAULT '24:00:00'::interval, p_experiment text DEFAULT 'push_prompt_timing'::text, p_as_treated boolean DEFAULT false, p_platform text DEFAULT NULL::text) RETURNS TABLE(cohort text, accepted bigint, opened bigint, silent_loss bigint)
    LANGUAGE sql STABLE
    AS $$
select m.cohort,
       count(*) filter (where c.outcome not in ('rejected', 'pending')),
       count(*) filter (where c.outcome = 'opened'),
       (select r.numerator from pushledger_outcome_rates(array_agg(c.outcome), array_agg(c.token_invalid)) r
         where r.rate = 'silent_loss_rate')
  from pushledger_prompt_cohort_members(p_app, p_from, p_to, p_as_of, p_experiment, p_as_treated, p_platform) m
  join pushledger_classified_sends(p_app, p_from, p_to, p_as_of, p_window) c on c.installation_id = m.installation_id
 group by m.cohort
 order by m.cohort
$$;


--
-- Name: pushledger_prompt_cohorts(text, timestamp with time zone, timestamp with time zone, timestamp with time zone, text, boolean, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_prompt_cohorts(p_app text, p_from timestamp with time zone, p_to timestamp with time zone, p_as_of timestamp with time zone DEFAULT now(), p_experiment text DEFAULT 'push_prompt_timing'::text, p_as_treated boolean DEFAULT false, p_platform text DEFAULT NULL::text) RETURNS TABLE(cohort text, installs bigint, prompted bigint, granted bigint, provisional bigint, reached bigint, granted_without_prompt bigint, retained_eligible bigint, retained bigint, median_hours_to_prompt double precision)
    LANGUAGE sql STABLE
    AS $$
select m.cohort, count(*),
       count(m.first_prompt_at),
       count(*) filter (where m.first_prompt_result = 'granted'),
       count(*) filter (where m.first_prompt_result = 'provisional'),
       count(*) filter (where m.can_display_now),
       count(*) filter (where m.can_display_now and m.first_prompt_at is null),
       count(*) filter (where m.retained_eligible),
       count(*) filter (where m.retained),
       percentile_cont(0.5) within group (
           order by extract(epoch from m.first_prompt_at - m.first_event_at) / 3600)
           filter (where m.first_prompt_at is not null)
  from pushledger_prompt_cohort_members(p_app, p_from, p_to, p_as_of, p_experiment, p_as_treated, p_platform) m
 group by m.cohort
 order by m.cohort
$$;


--
-- Name: pushledger_prompt_member_facts(timestamp with time zone, text, uuid[]); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_prompt_member_facts(p_as_of timestamp with time zone, p_app text, p_installations uuid[] DEFAULT NULL::uuid[]) RETURNS TABLE(app_id text, installation_id uuid, experiment text, day date, joined_at timestamp with time zone, cohort text, platform text, first_event_at timestamp with time zone, first_prompt_at timestamp with time zone, first_prompt_result text, can_display_now boolean, retained_eligible boolean, retained boolean)
    LANGUAGE sql STABLE
    AS $$
with first_prompt as (
    select distinct on (p.installation_id) p.installation_id, p.occurred_at, p.result, p.placement
      from permission_prompts p
     where p.app_id = p_app and (p_installations is null or p.installation_id = any (p_installations))
       and pushledger_shown_system_prompt(p.prompt, p.result) and p.occurred_at <= p_as_of
     order by p.installation_id, p.occurred_at, p.received_at, p.event_id
), first_exposure as (
    select distinct on (e.installation_id, e.experiment) e.installation_id, e.experiment, e.occurred_at, e.variant
      from experiment_exposures e
     where e.app_id = p_app and (p_installations is null or e.installation_id = any (p_installations))
       and e.occurred_at <= p_as_of
     order by e.installation_id, e.experiment, e.occurred_at, e.received_at, e.event_id
), snapshot_facts as (
    -- One pass over the snapshots up to as_of: the latest one's state, whether one came a week
    -- or more after a grant, and the latest state at the grant's week.
    select s.installation_id,
           (array_agg(s.can_display order by s.occurred_at desc, s.received_at desc, s.event_id desc))[1] as can_display_now,
           bool_or(s.occurred_at >= g.week_at) as later,
           (array_agg(s.can_display order by s.occurred_at desc, s.received_at desc, s.event_id desc)
                filter (where s.occurred_at <= g.week_at))[1] as week_state
      from settings_snapshots s
      left join (select f.installation_id, f.occurred_at + interval '7 days' as week_at
                   from first_prompt f where f.result = 'granted') g on g.installation_id = s.installation_id
     where s.app_id = p_app and (p_installations is null or s.installation_id = any (p_installations))
       and s.occurred_at <= p_as_of
     group by s.installation_id
), joined as (
    select x.installation_id, x.experiment, x.occurred_at, x.variant as cohort from first_exposure x
    union all
    select f.installation_id, '', f.occurred_at, f.placement from first_prompt f
)
select p_app, j.installation_id, j.experiment, pushledger_day(j.occurred_at), j.occurred_at, j.cohort,
       i.platform, i.first_seen_at, fp.occurred_at, fp.result,
       coalesce(sf.can_display_now, false),
       coalesce(fp.result = 'granted' and sf.later, false),
       coalesce(fp.result = 'granted' and sf.later and sf.week_state, false)
  from joined j
  join installations i on i.app_id = p_app and i.installation_id = j.installation_id
  left join first_prompt fp on fp.installation_id = j.installation_id
  left join snapshot_facts sf on sf.installation_id = j.installation_id
$$;


--
-- Name: pushledger_provider_check(text, date, date, boolean, timestamp with time zone, interval); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_provider_check(p_app text, p_from date, p_to date, p_by_campaign boolean DEFAULT false, p_as_of timestamp with time zone DEFAULT now(), p_window interval DEFAULT '24:00:00'::interval) RETURNS TABLE(day date, campaign text, fcm_entries bigint, count_messages_accepted bigint, delivered_pct double precision, pending_pct double precision, collapsed_pct double precision, dropped_too_many_pending_pct double precision, dropped_app_force_stopped_pct double precision, dropped_device_inactive_pct double precision, delivered_no_delay_pct double precision, sends bigint, accepted bigint, rejected bigint, pending bigint, opened bigint, received bigint, blocked_app bigint, blocked_channel bigint, unconfirmed bigint, unattributed bigint, token_invalid bigint, to_invalid_token bigint)
    LANGUAGE sql STABLE
    AS $$
with entries as (
    select f.day, case when p_by_campaign then f.analytics_label end as label,
           coalesce((f.entry #>> '{data,countMessagesAccepted}')::bigint, 0) as n,
           (f.entry #>> '{data,messageOutcomePercents,delivered}')::float8 as delivered,
           (f.entry #>> '{data,messageOutcomePercents,pending}')::float8 as pending,
           (f.entry #>> '{data,messageOutcomePercents,collapsed}')::float8 as collapsed,
           (f.entry #>> '{data,messageOutcomePercents,droppedTooManyPendingMessages}')::float8 as too_many,
           (f.entry #>> '{data,messageOutcomePercents,droppedAppForceStopped}')::float8 as force_stopped,
           (f.entry #>> '{data,messageOutcomePercents,droppedDeviceInactive}')::float8 as inactive,
           (f.entry #>> '{data,deliveryPerformancePercents,deliveredNoDelay}')::float8 as no_delay
      from fcm_delivery_data f
     where f.app_id = p_app and f.day >= p_from and f.day < p_to
), fcm as (
    select e.day, e.label, count(*) as entries, sum(e.n) as n,
           sum(e.n * e.delivered) / nullif(sum(e.n) filter (where e.delivered is not null), 0) as delivered,
           sum(e.n * e.pending) / nullif(sum(e.n) filter (where e.pending is not null), 0) as pending,
           sum(e.n * e.collapsed) / nullif(sum(e.n) filter (where e.collapsed is not null), 0) as collapsed,
           sum(e.n * e.too_many) / nullif(sum(e.n) filter (where e.too_many is not null), 0) as too_many,
           sum(e.n * e.force_stopped) / nullif(sum(e.n) filter (where e.force_stopped is not null), 0) as force_stopped,
           sum(e.n * e.inactive) / nullif(sum(e.n) filter (where e.inactive is not null), 0) as inactive,
           sum(e.n * e.no_delay) / nullif(sum(e.n) filter (where e.no_delay is not null), 0) as no_delay
      from entries e
     group by e.day, e.label
), ours as (
    select d.day as local_day, case when p_by_campaign then coalesce(s.campaign, '') end as label,
           s.sends, s.accepted, s.rejected, s.pending, s.opened, s.received, s.blocked_app, s.blocked_channel,
           s.unconfirmed, s.unattributed, s.token_invalid, s.to_invalid_token
      from (select g::date as day from generate_series(p_from::timestamp, p_to::timestamp - interval '1 day', interval '1 day') g) d
     cross join lateral pushledger_silent_loss(
           p_app, d.day::timestamp at time zone 'America/Los_Angeles',
           (d.day + 1)::timestamp at time zone 'America/Los_Angeles', p_as_of, p_window,
           case when p_by_campaign then '{provider,campaign}'::text[] else '{provider}'::text[] end) s
     where s.provider = 'fcm'
)
select coalesce(f.day, o.local_day), nullif(coalesce(f.label, o.label), ''), f.entries, f.n,
       f.delivered, f.pending, f.collapsed, f.too_many, f.force_stopped, f.inactive, f.no_delay,
       o.sends, o.accepted, o.rejected, o.pending, o.opened, o.received, o.blocked_app, o.blocked_channel,
       o.unconfirmed, o.unattributed, o.token_invalid, o.to_invalid_token
  from fcm f
  full join ours o on o.local_day = f.day and o.label is not distinct from f.label
 order by 1, 2 nulls first
$$;


--
-- Name: pushledger_queue_confirmations(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_queue_confirmations() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
begin
    insert into rollup_inputs (app_id, kind, keys, times, due_at)
    select app_id, case tg_table_name when 'notification_receipts' then 'receipt' else 'open' end,
           array_agg(notification_id), array_agg(occurred_at), max(occurred_at)
      from changed_rows group by app_id;
    return null;
end
$$;


--
-- Name: pushledger_queue_installation_platform(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_queue_installation_platform() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
begin
    insert into rollup_inputs (app_id, kind, keys, times, due_at)
    values (new.app_id, 'installation', array[new.installation_id], '{}', '-infinity');
    return null;
end
$$;


--
-- Name: pushledger_queue_installations(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_queue_installations() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
begin
    insert into rollup_inputs (app_id, kind, keys, times, due_at)
    select app_id, 'installation', array_agg(installation_id), '{}', '-infinity'
      from changed_rows group by app_id;
    return null;
end
$$;


--
-- Name: pushledger_queue_life(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_queue_life() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
begin
    insert into rollup_inputs (app_id, kind, keys, times, due_at)
    select app_id, 'life', array_agg(installation_id), array_agg(occurred_at),
           case when tg_op = 'DELETE' then '-infinity' else max(occurred_at) end
      from changed_rows group by app_id;
    return null;
end
$$;


--
-- Name: pushledger_queue_registrations(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_queue_registrations() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
begin
    insert into rollup_inputs (app_id, kind, keys, times, providers, due_at)
    select app_id, 'registration', array_agg(token_key), array_agg(occurred_at), array_agg(provider), '-infinity'
      from changed_rows group by app_id;
    return null;
end
$$;


--
-- Name: pushledger_queue_sends(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_queue_sends() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
begin
    insert into rollup_inputs (app_id, kind, keys, times, due_at)
    select app_id, 'send', array_agg(event_id), array_agg(sent_at), max(sent_at)
      from changed_rows group by app_id;
    insert into rollup_inputs (app_id, kind, keys, times, providers, due_at)
    select app_id, 'token', array_agg(token_key), array_agg(sent_at), array_agg(provider), '-infinity'
      from changed_rows where pushledger_reason_class(status, reason) = 'token_invalid' group by app_id;
    if tg_op = 'DELETE' then
        -- A removed attempt no longer supersedes the sends whose first sign of life received its
        -- notification (stored and changed ones are found from their keys).
        insert into rollup_inputs (app_id, kind, keys, times, due_at)
        select app_id, 'notification', array_agg(notification_id), array_agg(sent_at), '-infinity'
          from changed_rows group by app_id;
    end if;
    return null;
end
$$;


--
-- Name: pushledger_queue_snapshots(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_queue_snapshots() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
begin
    insert into rollup_inputs (app_id, kind, keys, times, due_at)
    select app_id, 'snapshot', array_agg(installation_id), array_agg(occurred_at), '-infinity'
      from changed_rows group by app_id;
    return null;
end
$$;


--
-- Name: pushledger_rate_columns(bigint, bigint, bigint, bigint, bigint, bigint, bigint, bigint, bigint); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_rate_columns(p_sends bigint, p_accepted bigint, p_rejected bigint, p_opened bigint, p_received bigint, p_blocked_app bigint, p_blocked_channel bigint, p_unconfirmed bigint, p_token_invalid bigint) RETURNS TABLE(silent_loss_rate_numerator bigint, silent_loss_rate_denominator bigint, known_blocked_rate_numerator bigint, known_blocked_rate_denominator bigint, unconfirmed_rate_numerator bigint, unconfirmed_rate_denominator bigint, confirmed_delivery_rate_numerator bigint, confirmed_delivery_rate_denominator bigint, open_rate_numerator bigint, open_rate_denominator bigint, open_rate_of_received_numerator bigint, open_rate_of_received_denominator bigint, rejection_rate_numerator bigint, rejection_rate_denominator bigint, token_invalid_rate_numerator bigint, token_invalid_rate_denominator bigint)
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
select max(p.numerator) filter (where p.rate = 'silent_loss_rate'), max(p.denominator) filter (where p.rate = 'silent_loss_rate'),
       max(p.numerator) filter (where p.rate = 'known_blocked_rate'), max(p.denominator) filter (where p.rate = 'known_blocked_rate'),
       max(p.numerator) filter (where p.rate = 'unconfirmed_rate'), max(p.denominator) filter (where p.rate = 'unconfirmed_rate'),
       max(p.numerator) filter (where p.rate = 'confirmed_delivery_rate'), max(p.denominator) filter (where p.rate = 'confirmed_delivery_rate'),
       max(p.numerator) filter (where p.rate = 'open_rate'), max(p.denominator) filter (where p.rate = 'open_rate'),
       max(p.numerator) filter (where p.rate = 'open_rate_of_received'), max(p.denominator) filter (where p.rate = 'open_rate_of_received'),
       max(p.numerator) filter (where p.rate = 'rejection_rate'), max(p.denominator) filter (where p.rate = 'rejection_rate'),
       max(p.numerator) filter (where p.rate = 'token_invalid_rate'), max(p.denominator) filter (where p.rate = 'token_invalid_rate')
  from pushledger_rates(p_sends, p_accepted, p_rejected, p_opened, p_received, p_blocked_app, p_blocked_channel,
                        p_unconfirmed, p_token_invalid) p
$$;


--
-- Name: pushledger_rates(bigint, bigint, bigint, bigint, bigint, bigint, bigint, bigint, bigint); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_rates(p_sends bigint, p_accepted bigint, p_rejected bigint, p_opened bigint, p_received bigint, p_blocked_app bigint, p_blocked_channel bigint, p_unconfirmed bigint, p_token_invalid bigint) RETURNS TABLE(rate text, numerator bigint, denominator bigint, value double precision, low_volume boolean)
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
select r.rate, r.numerator, r.denominator, r.numerator::double precision / nullif(r.denominator, 0),
       r.denominator < 30
  from (values (1, 'silent_loss_rate', p_blocked_app + p_blocked_channel + p_unconfirmed, p_accepted),
               (2, 'known_blocked_rate', p_blocked_app + p_blocked_channel, p_accepted),
               (3, 'unconfirmed_rate', p_unconfirmed, p_accepted),
               (4, 'confirmed_delivery_rate', p_received + p_opened, p_accepted),
               (5, 'open_rate', p_opened, p_accepted),
               (6, 'open_rate_of_received', p_opened, p_received + p_opened),
               (7, 'rejection_rate', p_rejected, p_sends),
               (8, 'token_invalid_rate', p_token_invalid, p_sends)) r(position, rate, numerator, denominator)
 order by r.position
$$;


--
-- Name: pushledger_reason_class(integer, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_reason_class(p_status integer, p_reason text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    select case
        when p_status between 200 and 299 then null
        when p_status = 410 or (p_status = 400 and p_reason = 'BadDeviceToken')
             or p_reason = 'UNREGISTERED' then 'token_invalid'
        when p_status = 429 or p_reason = 'QUOTA_EXCEEDED' then 'throttled'
        when p_status in (401, 403) then 'auth'
        when p_status in (400, 413) or p_reason = 'INVALID_ARGUMENT' then 'payload'
        when p_status >= 500 or p_status = 0 then 'provider_error'
        else 'other'
    end
$$;


--
-- Name: pushledger_rebuild_prompt_rollups(timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_rebuild_prompt_rollups(p_as_of timestamp with time zone DEFAULT now()) RETURNS integer
    LANGUAGE plpgsql
    SET plan_cache_mode TO 'force_custom_plan'
    SET jit TO 'off'
    AS $$
declare
    v_app text;
    v_experiments text[];
    v_days date[];
    v_groups integer := 0;
begin
    perform pg_advisory_xact_lock(hashtext('pushledger_refresh_prompt_rollups'));
    with taken as (
        delete from prompt_rollup_dirty_installations returning app_id, installation_id, due_at
    )
    insert into prompt_rollup_dirty_installations (app_id, installation_id, due_at)
    select t.app_id, t.installation_id, max(t.due_at) from taken t where t.due_at > p_as_of group by 1, 2;
    delete from prompt_cohort_members;
    delete from prompt_cohorts_daily;
    for v_app in select distinct i.app_id from installations i order by 1
    loop
        insert into prompt_cohort_members select * from pushledger_prompt_member_facts(p_as_of, v_app);
        select array_agg(g.experiment), array_agg(g.day) into v_experiments, v_days
          from (select distinct m.experiment, m.day from prompt_cohort_members m where m.app_id = v_app) g;
        perform pushledger_group_prompt_days(p_as_of, v_app, v_experiments, v_days) where v_days is not null;
        v_groups := v_groups + coalesce(cardinality(v_days), 0);
    end loop;
    perform pushledger_record_prompt_refresh(p_as_of);
    return v_groups;
end
$$;


--
-- Name: pushledger_rebuild_report_rollups(timestamp with time zone, interval); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_rebuild_report_rollups(p_as_of timestamp with time zone DEFAULT now(), p_window interval DEFAULT '24:00:00'::interval) RETURNS TABLE(refreshed_app text, refreshed_day date)
    LANGUAGE sql
    AS $$ select * from pushledger_report_rollups(p_as_of, p_window, true) $$;


--
-- Name: pushledger_rebuild_rollups(timestamp with time zone, interval); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_rebuild_rollups(p_as_of timestamp with time zone DEFAULT now(), p_window interval DEFAULT '24:00:00'::interval) RETURNS TABLE(refreshed_app text, refreshed_day date)
    LANGUAGE plpgsql
    AS $$
declare
    v_run record;
    v_sends bigint;
    v_indexes text[];
begin
    perform pg_advisory_xact_lock(hashtext('pushledger_refresh_rollups'));
    perform pushledger_rollup_work_tables();
    perform pushledger_take_rollup_inputs(p_as_of);
    truncate send_outcomes;
    v_indexes := pushledger_drop_indexes('send_outcomes');
    delete from send_rollups_daily;
    delete from send_rejections_daily;
    delete from instrumented_slices_daily;
    insert into instrumented_slices_daily (app_id, day, platform, app_version)
    select distinct r.app_id, pushledger_day(r.occurred_at), r.platform, r.app_version
      from notification_receipts r where r.occurred_at <= p_as_of;
    for v_run in
        with recursive apps as (
            select min(s.app_id) as app_id from sends s
            union all
            select (select min(s.app_id) from sends s where s.app_id > a.app_id) from apps a where a.app_id is not null
        ), spans as (
            select a.app_id,
                   (select pushledger_day(min(s.sent_at)) from sends s where s.app_id = a.app_id) as first_day,
                   (select pushledger_day(max(s.sent_at)) from sends s where s.app_id = a.app_id and s.sent_at <= p_as_of) as last_day
              from apps a where a.app_id is not null
        )
        select sp.app_id, d::date as first_day, least(d::date + 6, sp.last_day) as last_day
          from spans sp cross join generate_series(sp.first_day, sp.last_day, interval '7 days') d
         order by 1, 2
    loop
        perform pushledger_classify_days(v_run.app_id, v_run.first_day, v_run.last_day + 1, p_as_of, p_window, 'send_outcomes');
    end loop;
    perform pushledger_build_indexes(v_indexes);
    perform pushledger_apply_rollup_deltas(p_as_of, 'send_outcomes');
    select count(*) into v_sends from send_outcomes;
    -- Every day with rollups has its landing rollups computed (open_landings_days).
    insert into rollup_days select distinct r.app_id, r.day from send_rollups_daily r;
    perform pushledger_refresh_landing_notifications(p_as_of, true);
    perform pushledger_record_refresh(p_as_of, p_window, true, v_sends);
    return query
    select r.app_id, r.day from send_rollups_daily r union select sl.app_id, sl.day from instrumented_slices_daily sl
     order by 1, 2;
end
$$;


--
-- Name: pushledger_record_prompt_refresh(timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_record_prompt_refresh(p_as_of timestamp with time zone) RETURNS void
    LANGUAGE sql
    AS $$
    insert into prompt_rollup_state (as_of, refreshed_at) values (p_as_of, now())
    on conflict (singleton) do update set as_of = excluded.as_of, refreshed_at = excluded.refreshed_at
$$;


--
-- Name: pushledger_record_refresh(timestamp with time zone, interval, boolean, bigint); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_record_refresh(p_as_of timestamp with time zone, p_window interval, p_full boolean, p_sends bigint) RETURNS void
    LANGUAGE sql
    AS $$
    insert into rollup_refresh_state (as_of, window_length, refreshed_at, full_at, reclassified)
    values (p_as_of, p_window, now(), case when p_full then now() end, p_sends)
    on conflict (singleton) do update set
        as_of = excluded.as_of, window_length = excluded.window_length, refreshed_at = excluded.refreshed_at,
        full_at = coalesce(excluded.full_at, rollup_refresh_state.full_at), reclassified = excluded.reclassified
$$;


--
-- Name: pushledger_record_rollup_pass(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_record_rollup_pass() RETURNS void
    LANGUAGE sql
    AS $$
    update rollup_refresh_state
       set pass_started_at = now(), pass_seconds = extract(epoch from clock_timestamp() - now())
$$;


--
-- Name: pushledger_refresh_landing_notifications(timestamp with time zone, boolean); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_refresh_landing_notifications(p_as_of timestamp with time zone, p_all boolean) RETURNS void
    LANGUAGE plpgsql
    AS $$
declare
    v_indexes text[];
begin
    create temp table if not exists landing_new (like open_landing_notifications) on commit drop;
    create temp table if not exists landing_delta (sign integer, like open_landing_notifications) on commit drop;
    truncate landing_new, landing_delta;
    if p_all then
        insert into landing_new
        select distinct on (s.app_id, s.notification_id) s.app_id, s.notification_id, pushledger_day(s.sent_at),
               s.channel, s.campaign, o.opens, o.landed_reported, o.misrouted
          from (select o.app_id, o.notification_id, count(*) as opens, count(o.landed) as landed_reported,
                       count(*) filter (where o.landed in ('fallback', 'rejected')) as misrouted
                  from notification_opens o where o.occurred_at <= p_as_of group by 1, 2) o
          join sends s on s.app_id = o.app_id and s.notification_id = o.notification_id and s.sent_at <= p_as_of
         order by s.app_id, s.notification_id, s.sent_at desc, s.event_id desc;
        insert into landing_delta select 1, n.* from landing_new n;
        truncate open_landing_notifications;
        v_indexes := pushledger_drop_indexes('open_landing_notifications');
        delete from open_landings_daily;
    else
        insert into landing_new
        select n.app_id, n.notification_id, pushledger_day(l.sent_at), l.channel, l.campaign,
               c.opens, c.landed_reported, c.misrouted
          from (select distinct * from landing_notifications) n
         cross join lateral (
                select count(*) as opens, count(o.landed) as landed_reported,
                       count(*) filter (where o.landed in ('fallback', 'rejected')) as misrouted
                  from notification_opens o
                 where o.app_id = n.app_id and o.notification_id = n.notification_id and o.occurred_at <= p_as_of) c
         cross join lateral (
                select s.sent_at, s.channel, s.campaign from sends s
                 where s.app_id = n.app_id and s.notification_id = n.notification_id and s.sent_at <= p_as_of
                 order by s.sent_at desc, s.event_id desc
                 limit 1) l
         where c.opens > 0;
        insert into landing_delta
        select -1, o.* from (select distinct * from landing_notifications) n
          join open_landing_notifications o on o.app_id = n.app_id and o.notification_id = n.notification_id
         where not exists (select 1 from landing_new x
                            where x.app_id = o.app_id and x.notification_id = o.notification_id
                              and row(x.*) is not distinct from row(o.*))
        union all
        select 1, x.* from landing_new x
         where not exists (select 1 from open_landing_notifications o
                            where o.app_id = x.app_id and o.notification_id = x.notification_id
                              and row(x.*) is not distinct from row(o.*));
        delete from open_landing_notifications o using landing_delta d
         where d.sign = -1 and o.app_id = d.app_id and o.notification_id = d.notification_id;
    end if;
    insert into open_landing_notifications
    select app_id, notification_id, day, channel, campaign, opens, landed_reported, misrouted
      from landing_delta where sign = 1;
    if p_all then
        perform pushledger_build_indexes(v_indexes);
    end if;

    insert into open_landings_daily as l
    select d.app_id, d.day, d.channel, d.campaign, sum(d.sign * d.opens), sum(d.sign * d.landed_reported),
           sum(d.sign * d.misrouted)
      from landing_delta d
     group by 1, 2, 3, 4
    on conflict (app_id, day, channel, campaign) do update set
        opens = l.opens + excluded.opens, landed_reported = l.landed_reported + excluded.landed_reported,
        misrouted = l.misrouted + excluded.misrouted;
    delete from open_landings_daily l using (select distinct app_id, day from landing_delta) d
     where l.app_id = d.app_id and l.day = d.day and l.opens = 0;
    insert into open_landings_days (app_id, day, refreshed_at)
    select app_id, day, now() from (select app_id, day from landing_delta union select app_id, day from rollup_days) d
    on conflict (app_id, day) do update set refreshed_at = excluded.refreshed_at;
end
$$;


--
-- Name: pushledger_refresh_landings(timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_refresh_landings(p_as_of timestamp with time zone) RETURNS void
    LANGUAGE plpgsql
    AS $$
begin
    create temp table if not exists landing_notifications (app_id text, notification_id uuid) on commit drop;
    truncate landing_notifications;
    insert into landing_notifications
    select t.app_id, k.notification_id from rollup_taken t cross join unnest(t.keys) k(notification_id) where t.kind = 'open'
    union
    select r.app_id, r.notification_id from rollup_delta r;
    analyze landing_notifications;
    perform pushledger_refresh_landing_notifications(p_as_of, false);
end
$$;


--
-- Name: pushledger_refresh_prompt_rollups(timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_refresh_prompt_rollups(p_as_of timestamp with time zone DEFAULT now()) RETURNS integer
    LANGUAGE plpgsql
    AS $$
declare
    v_last timestamptz;
    v_app record;
    v_moved integer := 0;
begin
    perform pg_advisory_xact_lock(hashtext('pushledger_refresh_prompt_rollups'));
    select s.as_of into v_last from prompt_rollup_state s;
    if v_last is null or v_last > p_as_of then
        return pushledger_rebuild_prompt_rollups(p_as_of);
    end if;
    -- Every mark is taken and its installation recomputed; a mark due after as_of (an event
    -- dated after it) is put back, so refreshes recompute it until one as of its time has.
    if to_regclass('pg_temp.prompt_marks_taken') is null then
        create temp table prompt_marks_taken (app_id text, installation_id uuid) on commit drop;
    end if;
    truncate prompt_marks_taken;
    with taken as (
        delete from prompt_rollup_dirty_installations returning app_id, installation_id, due_at
    ), kept as (
        insert into prompt_rollup_dirty_installations (app_id, installation_id, due_at)
        select t.app_id, t.installation_id, max(t.due_at) from taken t where t.due_at > p_as_of group by 1, 2
    )
    insert into prompt_marks_taken select distinct t.app_id, t.installation_id from taken t;
    for v_app in select t.app_id, array_agg(t.installation_id) as ids from prompt_marks_taken t group by 1 order by 1
    loop
        v_moved := v_moved + pushledger_apply_prompt_members(p_as_of, v_app.app_id, v_app.ids);
    end loop;
    perform pushledger_record_prompt_refresh(p_as_of);
    return v_moved;
end
$$;


--
-- Name: pushledger_refresh_report_rollups(timestamp with time zone, interval); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_refresh_report_rollups(p_as_of timestamp with time zone DEFAULT now(), p_window interval DEFAULT '24:00:00'::interval) RETURNS TABLE(refreshed_app text, refreshed_day date)
    LANGUAGE sql
    AS $$ select * from pushledger_report_rollups(p_as_of, p_window, false) $$;


--
-- Name: pushledger_refresh_rollups(timestamp with time zone, interval); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_refresh_rollups(p_as_of timestamp with time zone DEFAULT now(), p_window interval DEFAULT '24:00:00'::interval) RETURNS TABLE(refreshed_app text, refreshed_day date)
    LANGUAGE plpgsql
    AS $$
declare
    v_last rollup_refresh_state;
    v_run record;
    v_sends bigint;
begin
    perform pg_advisory_xact_lock(hashtext('pushledger_refresh_rollups'));
    select * into v_last from rollup_refresh_state;
    if not found or p_as_of < v_last.as_of or p_window <> v_last.window_length then
        return query select * from pushledger_rebuild_rollups(p_as_of, p_window);
        return;
    end if;
    perform pushledger_rollup_work_tables();
    perform pushledger_take_rollup_inputs(p_as_of);
    create temp table if not exists rollup_slice_days (app_id text, day date) on commit drop;
    truncate rollup_slice_days;
    insert into rollup_slice_days select * from pushledger_refresh_slices(p_as_of);
    perform pushledger_affected_sends(p_as_of, p_window);
    -- The whole days go through the engine.
    insert into rollup_keys
    select k.app_id, k.sent_at, k.event_id, max(k.scope) from rollup_send_set k
     where not exists (select 1 from rollup_days d where d.app_id = k.app_id and d.day = pushledger_day(k.sent_at))
     group by 1, 2, 3;
    create temp table if not exists rollup_old on commit drop as select * from send_outcomes with no data;
    truncate rollup_old;
    -- The set's rows by key, one look-up each (a hash join would read all of send_outcomes).
    insert into rollup_old
    select o.* from rollup_keys k
     cross join lateral (select * from send_outcomes o
                          where o.app_id = k.app_id and o.sent_at = k.sent_at and o.event_id = k.event_id) o;
    -- A send without a row (new, or dated after the last as_of) is judged on every fact.
    update rollup_keys k set scope = 2
     where k.scope < 2
       and not exists (select 1 from rollup_old o where o.app_id = k.app_id and o.sent_at = k.sent_at and o.event_id = k.event_id);
    analyze rollup_keys, rollup_old;
    truncate rollup_send_set;
    insert into rollup_send_set select * from rollup_keys where scope = 2;
    analyze rollup_send_set;
    insert into rollup_new select (pushledger_outcome_row(c)).* from pushledger_classify_send_set(p_as_of, p_window) c;
    insert into rollup_new select * from pushledger_rejudge_outcomes(p_as_of, p_window);
    for v_run in select * from pushledger_day_runs((select array_agg(d.app_id) from rollup_days d),
                                                   (select array_agg(d.day) from rollup_days d)) loop
        perform pushledger_classify_days(v_run.app_id, v_run.first_day, v_run.last_day + 1, p_as_of, p_window);
    end loop;
    insert into rollup_old
    select o.* from rollup_days d
      join send_outcomes o on o.app_id = d.app_id and o.sent_at >= d.day::timestamp at time zone 'UTC'
                          and o.sent_at < (d.day + 1)::timestamp at time zone 'UTC';
    select count(*) into v_sends from rollup_new;
    create temp table if not exists rollup_refreshed (app_id text, day date) on commit drop;
    truncate rollup_refreshed;
    insert into rollup_refreshed select * from pushledger_replace_outcomes(p_as_of);
    perform pushledger_refresh_landings(p_as_of);
    perform pushledger_record_refresh(p_as_of, p_window, false, v_sends);
    return query
    select r.app_id, r.day from rollup_refreshed r
    union select d.app_id, d.day from rollup_days d
    union select d.app_id, d.day from rollup_slice_days d
     order by 1, 2;
end
$$;


--
-- Name: pushledger_refresh_slices(timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_refresh_slices(p_as_of timestamp with time zone) RETURNS TABLE(app_id text, day date)
    LANGUAGE plpgsql
    AS $$
#variable_conflict use_column
begin
    delete from instrumented_slices_daily sl using rollup_days d where sl.app_id = d.app_id and sl.day = d.day;
    insert into instrumented_slices_daily (app_id, day, platform, app_version)
    select distinct r.app_id, pushledger_day(r.occurred_at), r.platform, r.app_version
      from rollup_days d
      join notification_receipts r on r.app_id = d.app_id and r.occurred_at >= d.day::timestamp at time zone 'UTC'
                                  and r.occurred_at < (d.day + 1)::timestamp at time zone 'UTC'
     where r.occurred_at <= p_as_of;
    create temp table if not exists rollup_new_slices on commit drop as select * from instrumented_slices_daily with no data;
    truncate rollup_new_slices;
    -- The slices of the stored receipts of the notifications that got one (found by notification:
    -- a receipt erased since it was queued adds nothing).
    insert into rollup_new_slices
    select distinct r.app_id, pushledger_day(r.occurred_at), r.platform, r.app_version
      from (select distinct t.app_id, k.notification_id
              from rollup_taken t cross join unnest(t.keys) k(notification_id) where t.kind = 'receipt') n
      join notification_receipts r on r.app_id = n.app_id and r.notification_id = n.notification_id
     where r.occurred_at <= p_as_of
       and not exists (select 1 from instrumented_slices_daily sl
                        where sl.app_id = r.app_id and sl.day = pushledger_day(r.occurred_at) and sl.platform = r.platform
                          and sl.app_version is not distinct from r.app_version);
    insert into instrumented_slices_daily select * from rollup_new_slices;
    insert into rollup_send_set
    select o.app_id, o.sent_at, o.event_id, 0
      from rollup_new_slices sl
      join send_outcomes o on o.app_id = sl.app_id and o.day = sl.day and o.platform = sl.platform
                          and o.app_version is not distinct from sl.app_version
     where not o.instrumented;
    return query select distinct sl.app_id, sl.day from rollup_new_slices sl;
end
$$;


--
-- Name: pushledger_rejections(text, timestamp with time zone, timestamp with time zone, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_rejections(p_app text, p_from timestamp with time zone, p_to timestamp with time zone, p_as_of timestamp with time zone DEFAULT now()) RETURNS TABLE(provider text, reason_class text, reason text, status integer, sends bigint, rejected bigint, token_invalid bigint, to_invalid_token bigint)
    LANGUAGE sql STABLE
    AS $$
with c as (
    select * from pushledger_classified_sends(p_app, p_from, p_to, p_as_of)
)
select c.provider, null::text, null::text, null::integer, count(*),
       count(*) filter (where c.outcome = 'rejected'),
       count(*) filter (where c.token_invalid), count(*) filter (where c.to_invalid_token)
  from c group by c.provider
union all
select c.provider, c.reason_class, c.reason, c.status, count(*), count(*),
       count(*) filter (where c.token_invalid), count(*) filter (where c.to_invalid_token)
  from c where c.outcome = 'rejected'
 group by c.provider, c.reason_class, c.reason, c.status
 order by 1, 2 nulls first, 3, 4
$$;


--
-- Name: pushledger_rejudge_outcomes(timestamp with time zone, interval); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_rejudge_outcomes(p_as_of timestamp with time zone, p_window interval) RETURNS SETOF public.send_outcomes
    LANGUAGE plpgsql STABLE
    SET jit TO 'off'
    AS $$
begin
return query
with facts as materialized (
    select o.*,
           case when k.scope = 1 then coalesce(cf.displayed, false) else o.received_displayed end as now_displayed,
           case when k.scope = 1 then coalesce(cf.undisplayed, false) else o.received_undisplayed end as now_undisplayed,
           case when k.scope = 1 then coalesce(cf.opened, false) else o.opened end as now_opened,
           case when k.scope = 1 then pushledger_latency_bucket(o.sent_at, cf.first_at) else o.latency_bucket end
               as now_latency,
           exists (select 1 from instrumented_slices_daily sl
                    where sl.app_id = o.app_id and sl.day = o.day and sl.platform = o.platform
                      and sl.app_version is not distinct from o.app_version) as now_instrumented
      from rollup_keys k
      join rollup_old o on o.app_id = k.app_id and o.sent_at = k.sent_at and o.event_id = k.event_id
      left join lateral (select * from pushledger_notification_confirmations(o.app_id, o.notification_id, p_as_of)
                          where k.scope = 1) cf on true
     where k.scope < 2
), judged as materialized (
    select f.*,
           pushledger_judge_send(f.status, f.now_opened, f.now_displayed, f.now_undisplayed, f.sent_at, p_as_of, p_window,
                                 f.display_state, f.channel_blocked, f.installation_id is not null, f.now_instrumented)
               as now_outcome
      from facts f
), caused as (
    select j.*, pushledger_has_cause(j.now_outcome, j.display_state, j.installation_id is not null, j.now_instrumented)
               as now_has_cause
      from judged j
)
-- A send that had a cause keeps it: what could change a cause (a telemetry event of its
-- installation, a send of the notification its first sign of life received) re-judges it on
-- every fact. One that gains a cause looks it up.
select j.app_id, j.sent_at, j.event_id, j.day, j.notification_id, j.installation_id, j.provider, j.channel,
       j.campaign, j.status, j.reason, j.reason_class, j.token_invalid, j.to_invalid_token, j.platform,
       j.app_version, j.display_state, j.channel_blocked, j.now_instrumented, j.now_opened, j.now_displayed,
       j.now_undisplayed, j.now_outcome,
       j.os_version, j.sdk_int, j.standby_bucket, j.background_restricted, j.ignoring_battery_optimizations,
       j.low_power_mode,
       case when j.now_has_cause then coalesce(j.cause, c.cause) end,
       case when not j.now_has_cause then null when j.cause is not null then j.first_life_at else c.first_life_at end,
       case when not j.now_has_cause then null when j.cause is not null then j.first_life_notification
            else c.first_life_notification end,
       case when j.now_outcome in ('received', 'opened') then j.now_latency end
  from caused j
  left join lateral (select x.* from sends s
                      cross join lateral pushledger_send_cause(s.app_id, s.installation_id, s.notification_id, s.provider,
                                                               s.collapse_id, s.expires_at, s.sent_at, p_as_of) x
                      where s.app_id = j.app_id and s.sent_at = j.sent_at and s.event_id = j.event_id
                        and j.now_has_cause and j.cause is null) c on true;
end
$$;


--
-- Name: pushledger_replace_outcomes(timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_replace_outcomes(p_as_of timestamp with time zone) RETURNS TABLE(app_id text, day date)
    LANGUAGE plpgsql
    AS $$
#variable_conflict use_column
begin
    create temp table if not exists rollup_delta (sign integer, like send_outcomes) on commit drop;
    truncate rollup_delta;
    insert into rollup_delta
    select -1, o.* from rollup_old o
     where not exists (select 1 from rollup_new n
                        where n.app_id = o.app_id and n.sent_at = o.sent_at and n.event_id = o.event_id
                          and row(n.*) is not distinct from row(o.*))
    union all
    select 1, n.* from rollup_new n
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
           first_life_at, first_life_notification, latency_bucket
      from rollup_delta where sign = 1;
    return query select * from pushledger_apply_rollup_deltas(p_as_of);
end
$$;


--
-- Name: pushledger_report_rollups(timestamp with time zone, interval, boolean); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_report_rollups(p_as_of timestamp with time zone, p_window interval, p_full boolean) RETURNS TABLE(refreshed_app text, refreshed_day date)
    LANGUAGE plpgsql
    AS $$
begin
    create temp table if not exists report_refreshed_days (app_id text, day date) on commit drop;
    truncate report_refreshed_days;
    if p_full then
        insert into report_refreshed_days select * from pushledger_rebuild_rollups(p_as_of, p_window);
    else
        insert into report_refreshed_days select * from pushledger_refresh_rollups(p_as_of, p_window);
    end if;
    return query select app_id, day from report_refreshed_days order by 1, 2;
end
$$;


--
-- Name: pushledger_rollup_landings(text, date, date); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_rollup_landings(p_app text, p_from date, p_to date) RETURNS TABLE(channel text, campaign text, opens bigint, landed_reported bigint, misrouted bigint)
    LANGUAGE sql STABLE
    AS $$
select l.channel, l.campaign, sum(l.opens), sum(l.landed_reported), sum(l.misrouted)
  from open_landings_daily l
 where l.app_id = p_app and l.day >= p_from and l.day < p_to
 group by 1, 2
 order by 1, 2
$$;


--
-- Name: pushledger_rollup_prompt_cohorts(text, date, date, text, boolean, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_rollup_prompt_cohorts(p_app text, p_from date, p_to date, p_experiment text DEFAULT 'push_prompt_timing'::text, p_as_treated boolean DEFAULT false, p_platform text DEFAULT NULL::text) RETURNS TABLE(cohort text, installs bigint, prompted bigint, granted bigint, provisional bigint, reached bigint, granted_without_prompt bigint, retained_eligible bigint, retained bigint, median_hours_to_prompt double precision)
    LANGUAGE sql STABLE
    AS $$
with days as (
    select r.* from prompt_cohorts_daily r
     where r.app_id = p_app and r.day >= p_from and r.day < p_to
       and r.experiment is not distinct from (case when p_as_treated then null else p_experiment end)
       and (p_platform is null or r.platform = p_platform)
), medians as (
    select d.cohort, percentile_cont(0.5) within group (order by h) as median
      from days d cross join unnest(d.hours_to_prompt) h
     group by d.cohort
)
select d.cohort, sum(d.installs), sum(d.prompted), sum(d.granted), sum(d.provisional), sum(d.reached),
       sum(d.granted_without_prompt), sum(d.retained_eligible), sum(d.retained), m.median
  from days d left join medians m on m.cohort = d.cohort
 group by d.cohort, m.median
 order by d.cohort
$$;


--
-- Name: pushledger_rollup_rejections(text, date, date); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_rollup_rejections(p_app text, p_from date, p_to date) RETURNS TABLE(provider text, reason_class text, reason text, rejected bigint)
    LANGUAGE sql STABLE
    AS $$
select r.provider, r.reason_class, r.reason, sum(r.rejected)
  from send_rejections_daily r
 where r.app_id = p_app and r.day >= p_from and r.day < p_to
 group by 1, 2, 3
 order by 4 desc, 1, 2, 3
$$;


--
-- Name: pushledger_rollup_status(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_rollup_status() RETURNS TABLE(as_of timestamp with time zone, refreshed_at timestamp with time zone, pending_inputs bigint, oldest_pending_at timestamp with time zone, lag_seconds double precision, last_pass_seconds double precision)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
    with waiting as (
        select greatest(i.queued_at, i.due_at) as since from rollup_inputs i where i.due_at <= now()
        union all
        select d.marked_at from rollup_dirty_days d
        union all
        select greatest(m.marked_at, m.due_at) from prompt_rollup_dirty_installations m where m.due_at <= now()
    ), oldest as (
        select min(w.since) as at from waiting w
    )
    select s.as_of, s.refreshed_at,
           (select count(*) from rollup_inputs) + (select count(*) from rollup_dirty_days),
           o.at, coalesce(greatest(extract(epoch from now() - o.at), 0), 0)::double precision, s.pass_seconds
      from oldest o left join rollup_refresh_state s on true
$$;


--
-- Name: pushledger_rollup_totals(text, date, date, text[]); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_rollup_totals(p_app text, p_from date, p_to date, p_by text[] DEFAULT '{}'::text[]) RETURNS TABLE(channel text, platform text, app_version text, campaign text, provider text, week date, sends bigint, accepted bigint, rejected bigint, pending bigint, opened bigint, received bigint, blocked_app bigint, blocked_channel bigint, unconfirmed bigint, unattributed bigint, token_invalid bigint, to_invalid_token bigint, superseded bigint, app_stopped bigint, expired bigint, device_inactive bigint, unexplained bigint, latency_lt_10s bigint, latency_lt_1m bigint, latency_lt_10m bigint, latency_lt_1h bigint, latency_lt_6h bigint, latency_lt_24h bigint, latency_ge_24h bigint)
    LANGUAGE sql STABLE
    AS $$
-- Grouped by week, each ISO week is its own report window; otherwise [p_from, p_to) is.
select case when 'channel' = any(p_by) then r.channel end,
       case when 'platform' = any(p_by) then r.platform end,
       case when 'app_version' = any(p_by) then r.app_version end,
       case when 'campaign' = any(p_by) then r.campaign end,
       case when 'provider' = any(p_by) then r.provider end,
       case when 'week' = any(p_by) then date_trunc('week', r.day)::date end,
       sum(r.sends), sum(r.accepted), sum(r.rejected), sum(r.pending), sum(r.opened), sum(r.received),
       sum(r.blocked_app), sum(r.blocked_channel), sum(r.unconfirmed), sum(r.unattributed),
       sum(r.token_invalid), sum(r.to_invalid_token),
       sum(r.superseded), sum(r.app_stopped), sum(r.expired), sum(r.device_inactive), sum(r.unexplained), sum(r.latency_lt_10s), sum(r.latency_lt_1m), sum(r.latency_lt_10m), sum(r.latency_lt_1h), sum(r.latency_lt_6h), sum(r.latency_lt_24h), sum(r.latency_ge_24h)
  from pushledger_rollups_judged(p_app, p_from, p_to, 'week' = any(p_by)) r
 group by 1, 2, 3, 4, 5, 6
 order by 1, 2, 3, 4, 5, 6
$$;


--
-- Name: pushledger_rollup_work_tables(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_rollup_work_tables() RETURNS void
    LANGUAGE plpgsql
    AS $$
begin
    -- scope: what a send is judged again on. 2: every fact (pushledger_classify_send_set), 1: its
    -- confirmations, 0: time and its slice only (pushledger_rejudge_outcomes).
    create temp table if not exists rollup_send_set (app_id text, sent_at timestamptz, event_id uuid, scope smallint) on commit drop;
    create temp table if not exists rollup_keys (app_id text, sent_at timestamptz, event_id uuid, scope smallint) on commit drop;
    create temp table if not exists rollup_new (like send_outcomes) on commit drop;
    create temp table if not exists rollup_days (app_id text, day date) on commit drop;
    truncate rollup_send_set, rollup_keys, rollup_new, rollup_days;
end
$$;


--
-- Name: pushledger_rollups_judged(text, date, date, boolean, text[], text[]); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_rollups_judged(p_app text, p_from date, p_to date, p_weekly boolean DEFAULT false, p_platforms text[] DEFAULT '{}'::text[], p_app_versions text[] DEFAULT '{}'::text[]) RETURNS TABLE(day date, platform text, channel text, app_version text, campaign text, provider text, os_version text, sdk_int integer, standby_bucket text, background_restricted boolean, ignoring_battery_optimizations boolean, low_power_mode boolean, sends bigint, accepted bigint, rejected bigint, pending bigint, opened bigint, received bigint, blocked_app bigint, blocked_channel bigint, unconfirmed bigint, unattributed bigint, token_invalid bigint, to_invalid_token bigint, superseded bigint, app_stopped bigint, expired bigint, device_inactive bigint, unexplained bigint, latency_lt_10s bigint, latency_lt_1m bigint, latency_lt_10m bigint, latency_lt_1h bigint, latency_lt_6h bigint, latency_lt_24h bigint, latency_ge_24h bigint)
    LANGUAGE sql STABLE
    AS $$
with window_slices as (
    select distinct case when p_weekly then date_trunc('week', s.day)::date end as bucket,
           s.platform, s.app_version
      from (select i.day, i.platform, i.app_version
              from instrumented_slices_daily i
             where i.app_id = p_app and i.day >= p_from and i.day < p_to
            union all
            select null, u.platform, u.app_version
              from unnest(p_platforms, p_app_versions) u(platform, app_version)) s
), judged as (
    select r.*, case when w.platform is not null then r.unattributed_uninstrumented else 0 end as reclassified,
           w.platform is not null as widened
      from send_rollups_daily r
      left join window_slices w
        on w.bucket is not distinct from (case when p_weekly then date_trunc('week', r.day)::date end)
       and w.platform = r.platform and w.app_version is not distinct from r.app_version
     where r.app_id = p_app and r.day >= p_from and r.day < p_to
)
select r.day, r.platform, r.channel, r.app_version, r.campaign, r.provider,
       r.os_version, r.sdk_int, r.standby_bucket, r.background_restricted, r.ignoring_battery_optimizations,
       r.low_power_mode,
       r.sends::bigint, r.accepted::bigint, r.rejected::bigint, r.pending::bigint, r.opened::bigint,
       r.received::bigint, r.blocked_app::bigint, r.blocked_channel::bigint,
       (r.unconfirmed + r.reclassified)::bigint, (r.unattributed - r.reclassified)::bigint,
       r.token_invalid::bigint, r.to_invalid_token::bigint,
       -- The causes of the sends judged unconfirmed over the wider window come with them.
       (r.superseded + case when r.widened then r.superseded_uninstrumented else 0 end)::bigint,
       (r.app_stopped + case when r.widened then r.app_stopped_uninstrumented else 0 end)::bigint,
       (r.expired + case when r.widened then r.expired_uninstrumented else 0 end)::bigint,
       (r.device_inactive + case when r.widened then r.device_inactive_uninstrumented else 0 end)::bigint,
       (r.unexplained + case when r.widened then r.unexplained_uninstrumented else 0 end)::bigint,
       r.latency_lt_10s::bigint, r.latency_lt_1m::bigint, r.latency_lt_10m::bigint, r.latency_lt_1h::bigint, r.latency_lt_6h::bigint, r.latency_lt_24h::bigint, r.latency_ge_24h::bigint
  from judged r
$$;


--
-- Name: pushledger_send_cause(text, uuid, uuid, text, text, timestamp with time zone, timestamp with time zone, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_send_cause(p_app text, p_installation uuid, p_notification uuid, p_provider text, p_collapse_id text, p_expires_at timestamp with time zone, p_sent_at timestamp with time zone, p_as_of timestamp with time zone) RETURNS TABLE(cause text, first_life_at timestamp with time zone, first_life_notification uuid)
    LANGUAGE plpgsql STABLE
    AS $$
declare
    v_life record;
begin
    select * into v_life from pushledger_first_sign_of_life(p_app, p_installation, p_sent_at, p_as_of);
    if not found then
        return query select 'device_inactive'::text, null::timestamptz, null::uuid;
        return;
    end if;
    return query
    select case
        when v_life.kind = 'receipt' and v_life.notification_id <> p_notification and exists (
                -- A later accepted attempt of that notification, to the same installation, that
                -- could replace this one at the provider.
                select 1 from sends s
                 where s.app_id = p_app and s.notification_id = v_life.notification_id
                   and s.installation_id = p_installation and s.status between 200 and 299
                   and s.sent_at > p_sent_at and s.sent_at <= p_as_of
                   and ((p_provider = 'apns' and s.provider = 'apns') or s.collapse_id = p_collapse_id))
            then 'superseded'
        when v_life.kind = 'settings' and v_life.force_stopped then 'app_stopped'
        when v_life.occurred_at > p_expires_at then 'expired'
        else 'unexplained'
    end, v_life.occurred_at, case when v_life.kind = 'receipt' then v_life.notification_id end;
end
$$;


--
-- Name: pushledger_shown_system_prompt(text, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_shown_system_prompt(p_prompt text, p_result text) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ select p_prompt = 'system' and p_result <> 'already_determined' $$;


--
-- Name: pushledger_silent_loss(text, timestamp with time zone, timestamp with time zone, timestamp with time zone, interval, text[], text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_silent_loss(p_app text, p_from timestamp with time zone, p_to timestamp with time zone, p_as_of timestamp with time zone DEFAULT now(), p_window interval DEFAULT '24:00:00'::interval, p_by text[] DEFAULT '{}'::text[], p_source text DEFAULT 'engine'::text) RETURNS TABLE(channel text, platform text, app_version text, campaign text, day date, provider text, os_version text, sdk_int integer, standby_bucket text, background_restricted boolean, ignoring_battery_optimizations boolean, low_power_mode boolean, sends bigint, accepted bigint, rejected bigint, pending bigint, opened bigint, received bigint, blocked_app bigint, blocked_channel bigint, unconfirmed bigint, unattributed bigint, token_invalid bigint, to_invalid_token bigint, superseded bigint, app_stopped bigint, expired bigint, device_inactive bigint, unexplained bigint, latency_lt_10s bigint, latency_lt_1m bigint, latency_lt_10m bigint, latency_lt_1h bigint, latency_lt_6h bigint, latency_lt_24h bigint, latency_ge_24h bigint)
    LANGUAGE sql STABLE
    SET jit TO 'off'
    AS $$
select case when 'channel' = any(p_by) then r.channel end,
       case when 'platform' = any(p_by) then r.platform end,
       case when 'app_version' = any(p_by) then r.app_version end,
       case when 'campaign' = any(p_by) then r.campaign end,
       case when 'day' = any(p_by) then r.day end,
       case when 'provider' = any(p_by) then r.provider end,
       case when 'os_version' = any(p_by) then r.os_version end,
       case when 'sdk_int' = any(p_by) then r.sdk_int end,
       case when 'standby_bucket' = any(p_by) then r.standby_bucket end,
       case when 'background_restricted' = any(p_by) then r.background_restricted end,
       case when 'ignoring_battery_optimizations' = any(p_by) then r.ignoring_battery_optimizations end,
       case when 'low_power_mode' = any(p_by) then r.low_power_mode end,
       sum(r.sends)::bigint, sum(r.accepted)::bigint, sum(r.rejected)::bigint, sum(r.pending)::bigint,
       sum(r.opened)::bigint, sum(r.received)::bigint, sum(r.blocked_app)::bigint, sum(r.blocked_channel)::bigint,
       sum(r.unconfirmed)::bigint, sum(r.unattributed)::bigint, sum(r.token_invalid)::bigint,
       sum(r.to_invalid_token)::bigint,
       sum(r.superseded)::bigint, sum(r.app_stopped)::bigint, sum(r.expired)::bigint, sum(r.device_inactive)::bigint, sum(r.unexplained)::bigint, sum(r.latency_lt_10s)::bigint, sum(r.latency_lt_1m)::bigint, sum(r.latency_lt_10m)::bigint, sum(r.latency_lt_1h)::bigint, sum(r.latency_lt_6h)::bigint, sum(r.latency_lt_24h)::bigint, sum(r.latency_ge_24h)::bigint
  from (select * from pushledger_window_rollup_rows(p_app, p_from, p_to, p_as_of, p_window)
         where p_source = 'rollups'
        union all
        -- The window's own instrumentation only: no days, no other slices to judge with.
        select * from pushledger_classified_rollup_rows(p_app, p_from, p_to, p_as_of, p_window,
                                                        'infinity', 'infinity', '{}', '{}')
         where p_source = 'engine') r
 group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12
 order by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12
$$;


--
-- Name: pushledger_store_staged_invalidations(boolean, boolean); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_store_staged_invalidations(p_invalid boolean, p_registrations boolean) RETURNS void
    LANGUAGE plpgsql
    AS $$
begin
    if not p_registrations and not p_invalid then
        return;
    end if;
    -- No parameter in the statement (p_invalid false means no invalidating result staged,
    -- p_registrations false no registration): its plan is cached once, where one depending on
    -- the parameters was planned anew in most batches.
    with touched as (
        select st.app_id, st.provider, md5(st.token)::uuid as token_key
          from stage_sends st join stage_fresh using (seq)
         where pushledger_reason_class(st.status, st.reason) = 'token_invalid'
        union
        select t.app_id, t.provider, md5(t.token)::uuid
          from stage_telemetry t join stage_fresh using (seq)
         where t.type = 'push_token'
    ), state as (
        select k.app_id, k.provider, k.token_key, p.token, inv.sent_at, inv.status, inv.reason, inv.unregistered_at
          from touched k
          join push_tokens p using (app_id, provider, token_key)
          left join lateral pushledger_first_invalidation(k.app_id, k.provider, k.token_key, p.last_registered_at) inv
            on true
    ), valid_again as (
        delete from token_invalidations t using state s
         where s.sent_at is null and t.app_id = s.app_id and t.provider = s.provider and t.token_key = s.token_key
    )
    insert into token_invalidations as t (app_id, provider, token_key, token, invalidated_at, status, reason,
                                          unregistered_at, feed_xid)
    select app_id, provider, token_key, token, sent_at, status, reason, unregistered_at, pg_current_xact_id()
      from state
     where sent_at is not null
     order by app_id, provider, token_key
    on conflict (app_id, provider, token_key) do update set
        feed_xid = case when excluded.invalidated_at > t.invalidated_at then excluded.feed_xid else t.feed_xid end,
        invalidated_at = excluded.invalidated_at, status = excluded.status, reason = excluded.reason,
        unregistered_at = excluded.unregistered_at
     where (t.invalidated_at, t.status, t.reason, t.unregistered_at)
           is distinct from (excluded.invalidated_at, excluded.status, excluded.reason, excluded.unregistered_at);
end
$$;


--
-- Name: pushledger_store_staged_sends(boolean, boolean); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_store_staged_sends(p_sends boolean, p_registrations boolean) RETURNS void
    LANGUAGE plpgsql
    AS $$
declare
    -- Invalidating results staged. Found by a statement without parameters, whose plan is
    -- cached (one naming p_sends was planned anew each batch).
    v_invalid boolean := false;
begin
    if p_sends then
        v_invalid := exists (select 1 from stage_sends st where pushledger_reason_class(st.status, st.reason) = 'token_invalid');
        -- Sends without installation_id take the installation of the token's latest registration
        -- at or before sent_at (registrations of this batch were stored just before).
        insert into sends (app_id, event_id, notification_id, provider, token, installation_id, resolved_by,
                           channel, campaign, sent_at, status, reason, apns_id, unregistered_at, priority,
                           push_type, environment, latency_ms, received_at, response_body, collapse_id, expires_at)
        select s.app_id, s.event_id, s.notification_id, s.provider, s.token,
               coalesce(s.installation_id, r.installation_id),
               case when s.installation_id is not null then 'explicit'
                    when r.installation_id is not null then 'token' else 'unresolved' end,
               s.channel, s.campaign, s.sent_at, s.status, s.reason, s.apns_id, s.unregistered_at, s.priority,
               s.push_type, s.environment, s.latency_ms, s.received_at, s.response_body, s.collapse_id, s.expires_at
          from stage_sends s
          join stage_fresh using (seq)
          left join lateral (
                select r.installation_id from token_registrations r
                 where s.installation_id is null and r.app_id = s.app_id and r.provider = s.provider
                   and r.token_key = md5(s.token)::uuid and r.occurred_at <= s.sent_at
                 order by r.occurred_at desc, r.received_at desc, r.event_id desc
                 limit 1) r on true;
    end if;

    if p_registrations then
        -- Sends stored earlier without a registration (or before a later one) are re-resolved
        -- when a registration at or before their sent_at arrives late.
        with late as (
            select distinct t.app_id, t.provider, md5(t.token)::uuid as token_key, t.occurred_at
              from stage_telemetry t join stage_fresh using (seq)
             where t.type = 'push_token'
        ), candidates as (
            select s.app_id, s.sent_at, s.event_id, r.installation_id
              from sends s
              join late on s.app_id = late.app_id and s.provider = late.provider
                       and s.token_key = late.token_key and s.sent_at >= late.occurred_at
              cross join lateral (
                    select r.installation_id from token_registrations r
                     where r.app_id = s.app_id and r.provider = s.provider and r.token_key = s.token_key
                       and r.occurred_at <= s.sent_at
                     order by r.occurred_at desc, r.received_at desc, r.event_id desc
                     limit 1) r
             where s.resolved_by <> 'explicit' and s.installation_id is distinct from r.installation_id
        )
        update sends s set installation_id = c.installation_id, resolved_by = 'token'
          from candidates c
         where s.app_id = c.app_id and s.sent_at = c.sent_at and s.event_id = c.event_id;
    end if;

    if v_invalid then
        -- APNs 410, 400 BadDeviceToken, FCM UNREGISTERED: the token is invalid from that result on.
        insert into push_tokens as p (app_id, provider, token_key, token, installation_id, invalidated_at,
                                      invalidated_status, invalidated_reason, unregistered_at)
        select distinct on (s.app_id, s.provider, s.token_key)
               s.app_id, s.provider, s.token_key, s.token, s.installation_id, s.sent_at, s.status, s.reason,
               s.unregistered_at
          from sends s
          join (select st.app_id, st.sent_at, st.event_id
                  from stage_sends st join stage_fresh using (seq)
                 where pushledger_reason_class(st.status, st.reason) = 'token_invalid') fresh
            on s.app_id = fresh.app_id and s.sent_at = fresh.sent_at and s.event_id = fresh.event_id
         order by s.app_id, s.provider, s.token_key, s.sent_at desc, s.event_id desc
        on conflict (app_id, provider, token_key) do update set
            invalidated_at = greatest(p.invalidated_at, excluded.invalidated_at),
            invalidated_status = case when p.invalidated_at is null or excluded.invalidated_at >= p.invalidated_at
                                      then excluded.invalidated_status else p.invalidated_status end,
            invalidated_reason = case when p.invalidated_at is null or excluded.invalidated_at >= p.invalidated_at
                                      then excluded.invalidated_reason else p.invalidated_reason end,
            unregistered_at = case when p.invalidated_at is null or excluded.invalidated_at >= p.invalidated_at
                                   then coalesce(excluded.unregistered_at, p.unregistered_at) else p.unregistered_at end,
            installation_id = coalesce(p.installation_id, excluded.installation_id);
    end if;

    perform pushledger_store_staged_invalidations(v_invalid, p_registrations);
end
$$;


--
-- Name: pushledger_store_staged_telemetry(text[]); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_store_staged_telemetry(p_types text[]) RETURNS void
    LANGUAGE plpgsql
    AS $$
begin
    if 'notification_settings' = any(p_types) then
        insert into settings_snapshots (
            app_id, event_id, installation_id, platform, app_version, os_version, sdk_int,
            authorization_status, alert_setting, sound_setting, badge_setting, lock_screen_setting,
            notification_center_setting, time_sensitive_setting, scheduled_delivery_setting, alert_style,
            notifications_enabled, post_notifications, channel_count, standby_bucket, background_restricted,
            ignoring_battery_optimizations, force_stopped_before_start, low_power_mode, at, occurred_at, received_at)
        select app_id, event_id, installation_id, platform, app_version, os_version, sdk_int,
               authorization_status, alert_setting, sound_setting, badge_setting, lock_screen_setting,
               notification_center_setting, time_sensitive_setting, scheduled_delivery_setting, alert_style,
               notifications_enabled, post_notifications, channel_count, standby_bucket, background_restricted,
               ignoring_battery_optimizations, force_stopped_before_start, low_power_mode, at, occurred_at, received_at
          from stage_telemetry join stage_fresh using (seq)
         where type = 'notification_settings';

        insert into channel_states (app_id, snapshot_event_id, installation_id, channel_id, importance,
                                    group_id, group_blocked, occurred_at, received_at)
        select t.app_id, t.event_id, t.installation_id, c.channel_id, c.importance, c.group_id,
               c.group_blocked, t.occurred_at, t.received_at
          from stage_channels c join stage_fresh using (seq) join stage_telemetry t using (seq);
    end if;

    if 'permission_prompt' = any(p_types) then
        insert into permission_prompts (app_id, event_id, installation_id, platform, app_version, os_version,
                                        sdk_int, placement, prompt, result, at, occurred_at, received_at)
        select app_id, event_id, installation_id, platform, app_version, os_version, sdk_int,
               placement, prompt, result, at, occurred_at, received_at
          from stage_telemetry join stage_fresh using (seq)
         where type = 'permission_prompt';
    end if;

    if 'experiment_exposure' = any(p_types) then
        insert into experiment_exposures (app_id, event_id, installation_id, platform, app_version, os_version,
                                          sdk_int, experiment, variant, at, occurred_at, received_at)
        select app_id, event_id, installation_id, platform, app_version, os_version, sdk_int,
               experiment, variant, at, occurred_at, received_at
          from stage_telemetry join stage_fresh using (seq)
         where type = 'experiment_exposure';
    end if;

    if 'notification_received' = any(p_types) then
        insert into notification_receipts (app_id, event_id, installation_id, platform, app_version, os_version,
                                           sdk_int, notification_id, channel, displayed, at, occurred_at, received_at)
        select app_id, event_id, installation_id, platform, app_version, os_version, sdk_int,
               notification_id, channel, displayed, at, occurred_at, received_at
          from stage_telemetry join stage_fresh using (seq)
         where type = 'notification_received';
    end if;

    if 'notification_opened' = any(p_types) then
        insert into notification_opens (app_id, event_id, installation_id, platform, app_version, os_version,
                                        sdk_int, notification_id, action, link, landed, at, occurred_at, received_at)
        select app_id, event_id, installation_id, platform, app_version, os_version, sdk_int,
               notification_id, action, link, landed, at, occurred_at, received_at
          from stage_telemetry join stage_fresh using (seq)
         where type = 'notification_opened';
    end if;

    if 'push_token' = any(p_types) then
        insert into token_registrations (app_id, event_id, installation_id, platform, app_version, os_version,
                                         sdk_int, provider, token, environment, at, occurred_at, received_at)
        select app_id, event_id, installation_id, platform, app_version, os_version, sdk_int,
               provider, token, environment, at, occurred_at, received_at
          from stage_telemetry join stage_fresh using (seq)
         where type = 'push_token';

        -- Token state: the latest registration names the installation and environment.
        insert into push_tokens as p (app_id, provider, token_key, token, environment, installation_id,
                                      first_registered_at, last_registered_at)
        select distinct on (app_id, provider, md5(token)::uuid)
               app_id, provider, md5(token)::uuid, token, environment, installation_id,
               min(occurred_at) over w, max(occurred_at) over w
          from stage_telemetry join stage_fresh using (seq)
         where type = 'push_token'
        window w as (partition by app_id, provider, md5(token)::uuid)
         order by app_id, provider, md5(token)::uuid, occurred_at desc, received_at desc, event_id desc
        on conflict (app_id, provider, token_key) do update set
            first_registered_at = least(p.first_registered_at, excluded.first_registered_at),
            last_registered_at = greatest(p.last_registered_at, excluded.last_registered_at),
            installation_id = case when p.last_registered_at is null or excluded.last_registered_at >= p.last_registered_at
                                   then excluded.installation_id else p.installation_id end,
            environment = case when p.last_registered_at is null or excluded.last_registered_at >= p.last_registered_at
                               then excluded.environment else p.environment end;
    end if;

    -- Installations: every valid event (duplicates included: they prove the app is alive).
    insert into installations as i (app_id, installation_id, platform, first_seen_at, last_seen_at,
                                    last_received_at, app_version, os_version, sdk_int)
    select distinct on (app_id, installation_id)
           app_id, installation_id, platform, min(occurred_at) over w, max(occurred_at) over w,
           max(received_at) over w, app_version, os_version, sdk_int
      from stage_telemetry
    window w as (partition by app_id, installation_id)
     order by app_id, installation_id, occurred_at desc, seq desc
    on conflict (app_id, installation_id) do update set
        first_seen_at = least(i.first_seen_at, excluded.first_seen_at),
        last_seen_at = greatest(i.last_seen_at, excluded.last_seen_at),
        last_received_at = greatest(i.last_received_at, excluded.last_received_at),
        platform = case when excluded.last_seen_at >= i.last_seen_at then excluded.platform else i.platform end,
        app_version = case when excluded.last_seen_at >= i.last_seen_at then excluded.app_version else i.app_version end,
        os_version = case when excluded.last_seen_at >= i.last_seen_at then excluded.os_version else i.os_version end,
        sdk_int = case when excluded.last_seen_at >= i.last_seen_at then excluded.sdk_int else i.sdk_int end;
end
$$;


--
-- Name: pushledger_tail(text, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_tail(p_app text, p_since timestamp with time zone) RETURNS TABLE(received_at timestamp with time zone, key text, result text, type text, installation_id uuid, event_id text, detail text, error_code text, message text)
    LANGUAGE sql STABLE
    AS $$
    select s.received_at, s.event_id::text, 'accepted', 'notification_settings', s.installation_id, s.event_id::text,
           concat_ws(' ', 'authorization=' || s.authorization_status, 'enabled=' || s.notifications_enabled::text,
                     'post_notifications=' || s.post_notifications, 'channels=' || s.channel_count::text),
           null, null
      from settings_snapshots s where s.app_id = p_app and s.received_at >= p_since
    union all
    select p.received_at, p.event_id::text, 'accepted', 'permission_prompt', p.installation_id, p.event_id::text,
           concat_ws(' ', p.placement, p.prompt, p.result), null, null
      from permission_prompts p where p.app_id = p_app and p.received_at >= p_since
    union all
    select e.received_at, e.event_id::text, 'accepted', 'experiment_exposure', e.installation_id, e.event_id::text,
           e.experiment || '=' || e.variant, null, null
      from experiment_exposures e where e.app_id = p_app and e.received_at >= p_since
    union all
    select t.received_at, t.event_id::text, 'accepted', 'push_token', t.installation_id, t.event_id::text,
           concat_ws(' ', t.provider, left(t.token, 8) || '…', t.environment), null, null
      from token_registrations t where t.app_id = p_app and t.received_at >= p_since
    union all
    select r.received_at, r.event_id::text, 'accepted', 'notification_received', r.installation_id, r.event_id::text,
           concat_ws(' ', 'notification=' || r.notification_id::text, 'channel=' || r.channel, 'displayed=' || r.displayed::text),
           null, null
      from notification_receipts r where r.app_id = p_app and r.received_at >= p_since
    union all
    select o.received_at, o.event_id::text, 'accepted', 'notification_opened', o.installation_id, o.event_id::text,
           concat_ws(' ', 'notification=' || o.notification_id::text, 'action=' || o.action, 'landed=' || o.landed), null, null
      from notification_opens o where o.app_id = p_app and o.received_at >= p_since
    union all
    select s.received_at, s.event_id::text, 'accepted', 'send', s.installation_id, s.event_id::text,
           concat_ws(' ', s.provider, 'status=' || s.status::text, 'reason=' || s.reason, 'channel=' || s.channel), null, null
      from sends s where s.app_id = p_app and s.received_at >= p_since
    union all
    -- A rejected event (or request) has no checked fields: type and installation are read from
    -- its raw JSON when they are there.
    select f.received_at, 'failed:' || f.id::text, 'rejected',
           coalesce(substring(f.raw_json from '"type"\s*:\s*"([a-z_]{1,64})"'), case when f.event_index is null then 'request' else 'event' end),
           substring(f.raw_json from '"installation_id"\s*:\s*"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})"')::uuid, f.event_id, f.endpoint, f.error_code, f.message
      from failed_events f where f.app_id = p_app and f.received_at >= p_since
$$;


--
-- Name: pushledger_take_rollup_inputs(timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_take_rollup_inputs(p_as_of timestamp with time zone) RETURNS void
    LANGUAGE plpgsql
    AS $$
begin
    create temp table if not exists rollup_taken on commit drop as select * from rollup_inputs with no data;
    truncate rollup_taken;
    with taken as (delete from rollup_inputs returning *)
    insert into rollup_taken select * from taken;
    insert into rollup_inputs select * from rollup_taken where due_at > p_as_of;
    with taken as (delete from rollup_dirty_days returning app_id, day)
    insert into rollup_days select distinct t.app_id, t.day from taken t;
end
$$;


--
-- Name: pushledger_tapped_links(text, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_tapped_links(p_app text, p_since timestamp with time zone) RETURNS TABLE(host text, link text, opens bigint, landed_reported bigint, misrouted bigint)
    LANGUAGE sql STABLE
    AS $$
select pushledger_link_host(o.link), o.link, count(*), count(o.landed), count(*) filter (where o.landed in ('fallback', 'rejected'))
  from notification_opens o
 where o.app_id = p_app and o.occurred_at >= p_since and pushledger_link_host(o.link) is not null
 group by 1, 2
 order by 1, 3 desc, 2
$$;


--
-- Name: pushledger_window_rollup_rows(text, timestamp with time zone, timestamp with time zone, timestamp with time zone, interval); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pushledger_window_rollup_rows(p_app text, p_from timestamp with time zone, p_to timestamp with time zone, p_as_of timestamp with time zone, p_window interval) RETURNS TABLE(day date, platform text, channel text, app_version text, campaign text, provider text, os_version text, sdk_int integer, standby_bucket text, background_restricted boolean, ignoring_battery_optimizations boolean, low_power_mode boolean, sends bigint, accepted bigint, rejected bigint, pending bigint, opened bigint, received bigint, blocked_app bigint, blocked_channel bigint, unconfirmed bigint, unattributed bigint, token_invalid bigint, to_invalid_token bigint, superseded bigint, app_stopped bigint, expired bigint, device_inactive bigint, unexplained bigint, latency_lt_10s bigint, latency_lt_1m bigint, latency_lt_10m bigint, latency_lt_1h bigint, latency_lt_6h bigint, latency_lt_24h bigint, latency_ge_24h bigint)
    LANGUAGE plpgsql STABLE
    SET jit TO 'off'
    AS $$
#variable_conflict use_column
declare
    -- The whole days [v_first, v_last); none when the window holds no whole day.
    v_first date := pushledger_day(p_from) + case when p_from = pushledger_day(p_from)::timestamp at time zone 'UTC' then 0 else 1 end;
    v_last date := greatest(pushledger_day(p_to), v_first);
    v_head_to timestamptz := least(p_to, v_first::timestamp at time zone 'UTC');
    v_tail_from timestamptz := greatest(p_from, v_last::timestamp at time zone 'UTC');
    v_platforms text[];
    v_app_versions text[];
begin
    if v_first >= v_last then
        v_head_to := p_to;
        v_tail_from := p_to;
    end if;
    -- The slices that reported a receipt in the hours outside whole days (the engine's rule).
    select coalesce(array_agg(s.platform), '{}'), coalesce(array_agg(s.app_version), '{}')
      into v_platforms, v_app_versions
      from (select distinct r.platform, r.app_version
              from notification_receipts r
             where r.app_id = p_app and r.occurred_at <= p_as_of
               and ((r.occurred_at >= p_from and r.occurred_at < v_head_to)
                    or (r.occurred_at >= v_tail_from and r.occurred_at < p_to))) s;
    return query
    select * from pushledger_rollups_judged(p_app, v_first, v_last, false, v_platforms, v_app_versions);
    if p_from < v_head_to then
        return query select * from pushledger_classified_rollup_rows(p_app, p_from, v_head_to, p_as_of, p_window,
                                                                     v_first, v_last, v_platforms, v_app_versions);
    end if;
    if v_tail_from < p_to then
        return query select * from pushledger_classified_rollup_rows(p_app, v_tail_from, p_to, p_as_of, p_window,
                                                                     v_first, v_last, v_platforms, v_app_versions);
    end if;
end
$$;


--
-- Name: alert_states; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.alert_states (
    rule text NOT NULL,
    app_id text NOT NULL,
    slice jsonb NOT NULL,
    firing_since timestamp with time zone NOT NULL,
    transition_id bigint NOT NULL
);


--
-- Name: alert_transitions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.alert_transitions (
    id bigint NOT NULL,
    rule text NOT NULL,
    app_id text NOT NULL,
    slice jsonb NOT NULL,
    state text NOT NULL,
    at timestamp with time zone NOT NULL,
    current_rate double precision,
    baseline_rate double precision,
    current_volume bigint,
    baseline_volume bigint,
    delta_pp double precision,
    p_value double precision,
    message text NOT NULL,
    checked_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT alert_transitions_state_check CHECK ((state = ANY (ARRAY['firing'::text, 'resolved'::text])))
);


--
-- Name: alert_transitions_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.alert_transitions_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: alert_transitions_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.alert_transitions_id_seq OWNED BY public.alert_transitions.id;


--
-- Name: api_keys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.api_keys (
    id uuid NOT NULL,
    app_id text NOT NULL,
    scope text NOT NULL,
    key_hash bytea NOT NULL,
    key_prefix text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    revoked_at timestamp with time zone,
    expires_at timestamp with time zone,
    last_used_at timestamp with time zone,
    rate_per_second double precision,
    rate_burst integer,
    CONSTRAINT api_keys_key_hash_check CHECK ((length(key_hash) = 32)),
    CONSTRAINT api_keys_rate_burst_check CHECK ((rate_burst > 0)),
    CONSTRAINT api_keys_rate_limit_whole CHECK (((rate_per_second IS NULL) = (rate_burst IS NULL))),
    CONSTRAINT api_keys_rate_per_second_check CHECK ((rate_per_second > (0)::double precision)),
    CONSTRAINT api_keys_scope_check CHECK ((scope = ANY (ARRAY['telemetry'::text, 'sends'::text])))
);


--
-- Name: app_android_identities; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.app_android_identities (
    app_id text NOT NULL,
    package_name text NOT NULL,
    cert_sha256 text NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT app_android_identities_cert_sha256_check CHECK ((cert_sha256 ~ '^[0-9A-F]{2}(:[0-9A-F]{2}){31}$'::text))
);


--
-- Name: app_ios_identities; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.app_ios_identities (
    app_id text NOT NULL,
    ios_app_id text NOT NULL,
    "position" integer NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: channel_states; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.channel_states (
    app_id text NOT NULL,
    snapshot_event_id uuid NOT NULL,
    installation_id uuid NOT NULL,
    channel_id text NOT NULL,
    importance integer NOT NULL,
    group_id text,
    group_blocked boolean,
    blocked boolean GENERATED ALWAYS AS (((importance = 0) OR COALESCE(group_blocked, false))) STORED NOT NULL,
    occurred_at timestamp with time zone NOT NULL,
    received_at timestamp with time zone NOT NULL
)
PARTITION BY RANGE (occurred_at);


--
-- Name: channel_states_default; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.channel_states_default (
    app_id text NOT NULL,
    snapshot_event_id uuid NOT NULL,
    installation_id uuid NOT NULL,
    channel_id text NOT NULL,
    importance integer NOT NULL,
    group_id text,
    group_blocked boolean,
    blocked boolean GENERATED ALWAYS AS (((importance = 0) OR COALESCE(group_blocked, false))) STORED NOT NULL,
    occurred_at timestamp with time zone NOT NULL,
    received_at timestamp with time zone NOT NULL
);


--
-- Name: erasures; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.erasures (
    app_id text NOT NULL,
    subject text NOT NULL,
    subject_hash bytea NOT NULL,
    first_erased_at timestamp with time zone DEFAULT now() NOT NULL,
    last_erased_at timestamp with time zone DEFAULT now() NOT NULL,
    runs integer DEFAULT 1 NOT NULL,
    CONSTRAINT erasures_subject_check CHECK ((subject = ANY (ARRAY['installation'::text, 'token'::text]))),
    CONSTRAINT erasures_subject_hash_check CHECK ((length(subject_hash) = 32))
);


--
-- Name: event_ids; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.event_ids (
    app_id text NOT NULL,
    event_id uuid NOT NULL,
    received_at timestamp with time zone NOT NULL
);


--
-- Name: experiment_exposures; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.experiment_exposures (
    app_id text NOT NULL,
    event_id uuid NOT NULL,
    installation_id uuid NOT NULL,
    platform text NOT NULL,
    app_version text,
    os_version text,
    sdk_int integer,
    experiment text NOT NULL,
    variant text NOT NULL,
    at timestamp with time zone NOT NULL,
    occurred_at timestamp with time zone NOT NULL,
    received_at timestamp with time zone NOT NULL
);


--
-- Name: failed_events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.failed_events (
    id bigint NOT NULL,
    app_id text NOT NULL,
    endpoint text NOT NULL,
    error_code text NOT NULL,
    message text NOT NULL,
    event_index integer,
    event_id text,
    raw_json text NOT NULL,
    received_at timestamp with time zone NOT NULL,
    raw_bytes integer,
    raw_sha256 bytea,
    installation_id uuid,
    token text,
    CONSTRAINT failed_events_raw_sha256_check CHECK ((length(raw_sha256) = 32))
);


--
-- Name: failed_event_reasons; Type: VIEW; Schema: public; Owner: -
--

CREATE VIEW public.failed_event_reasons AS
 SELECT f.app_id,
    f.endpoint,
    f.error_code,
    f.received_at
   FROM public.failed_events f;


--
-- Name: failed_events_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.failed_events ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.failed_events_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: fcm_delivery_data; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.fcm_delivery_data (
    app_id text NOT NULL,
    fcm_app_id text NOT NULL,
    day date NOT NULL,
    analytics_label text NOT NULL,
    entry jsonb NOT NULL,
    imported_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: ingested_events; Type: VIEW; Schema: public; Owner: -
--

CREATE VIEW public.ingested_events AS
 SELECT e.app_id,
    e.received_at
   FROM public.event_ids e;


--
-- Name: installations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.installations (
    app_id text NOT NULL,
    installation_id uuid NOT NULL,
    platform text NOT NULL,
    first_seen_at timestamp with time zone NOT NULL,
    last_seen_at timestamp with time zone NOT NULL,
    last_received_at timestamp with time zone NOT NULL,
    app_version text,
    os_version text,
    sdk_int integer,
    CONSTRAINT installations_platform_check CHECK ((platform = ANY (ARRAY['ios'::text, 'android'::text])))
);


--
-- Name: instrumented_slices_daily; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.instrumented_slices_daily (
    app_id text NOT NULL,
    day date NOT NULL,
    platform text NOT NULL,
    app_version text
);


--
-- Name: link_check_results; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.link_check_results (
    id bigint NOT NULL,
    app_id text NOT NULL,
    checked_at timestamp with time zone NOT NULL,
    domain text NOT NULL,
    check_name text NOT NULL,
    subject text DEFAULT ''::text NOT NULL,
    verdict text NOT NULL,
    passed boolean NOT NULL,
    detail text NOT NULL
);


--
-- Name: link_check_latest; Type: VIEW; Schema: public; Owner: -
--

CREATE VIEW public.link_check_latest AS
 SELECT r.app_id,
    r.domain,
    r.checked_at,
    r.check_name,
    r.subject,
    r.verdict,
    r.passed,
    r.detail
   FROM public.link_check_results r
  WHERE (r.checked_at = ( SELECT max(l.checked_at) AS max
           FROM public.link_check_results l
          WHERE ((l.app_id = r.app_id) AND (l.domain = r.domain))));


--
-- Name: link_check_results_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.link_check_results ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.link_check_results_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: notification_opens; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.notification_opens (
    app_id text NOT NULL,
    event_id uuid NOT NULL,
    installation_id uuid NOT NULL,
    platform text NOT NULL,
    app_version text,
    os_version text,
    sdk_int integer,
    notification_id uuid NOT NULL,
    action text NOT NULL,
    link text,
    landed text,
    at timestamp with time zone NOT NULL,
    occurred_at timestamp with time zone NOT NULL,
    received_at timestamp with time zone NOT NULL,
    CONSTRAINT notification_opens_landed_check CHECK ((landed = ANY (ARRAY['target'::text, 'fallback'::text, 'rejected'::text])))
)
PARTITION BY RANGE (occurred_at);


--
-- Name: notification_opens_default; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.notification_opens_default (
    app_id text NOT NULL,
    event_id uuid NOT NULL,
    installation_id uuid NOT NULL,
    platform text NOT NULL,
    app_version text,
    os_version text,
    sdk_int integer,
    notification_id uuid NOT NULL,
    action text NOT NULL,
    link text,
    landed text,
    at timestamp with time zone NOT NULL,
    occurred_at timestamp with time zone NOT NULL,
    received_at timestamp with time zone NOT NULL,
    CONSTRAINT notification_opens_landed_check CHECK ((landed = ANY (ARRAY['target'::text, 'fallback'::text, 'rejected'::text])))
);


--
-- Name: notification_receipts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.notification_receipts (
    app_id text NOT NULL,
    event_id uuid NOT NULL,
    installation_id uuid NOT NULL,
    platform text NOT NULL,
    app_version text,
    os_version text,
    sdk_int integer,
    notification_id uuid NOT NULL,
    channel text,
    displayed boolean,
    at timestamp with time zone NOT NULL,
    occurred_at timestamp with time zone NOT NULL,
    received_at timestamp with time zone NOT NULL
)
PARTITION BY RANGE (occurred_at);


--
-- Name: notification_receipts_default; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.notification_receipts_default (
    app_id text NOT NULL,
    event_id uuid NOT NULL,
    installation_id uuid NOT NULL,
    platform text NOT NULL,
    app_version text,
    os_version text,
    sdk_int integer,
    notification_id uuid NOT NULL,
    channel text,
    displayed boolean,
    at timestamp with time zone NOT NULL,
    occurred_at timestamp with time zone NOT NULL,
    received_at timestamp with time zone NOT NULL
);


--
-- Name: open_landing_notifications; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.open_landing_notifications (
    app_id text NOT NULL,
    notification_id uuid NOT NULL,
    day date NOT NULL,
    channel text NOT NULL,
    campaign text,
    opens integer NOT NULL,
    landed_reported integer NOT NULL,
    misrouted integer NOT NULL
);


--
-- Name: sends; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.sends (
    app_id text NOT NULL,
    event_id uuid NOT NULL,
    notification_id uuid NOT NULL,
    provider text NOT NULL,
    token text NOT NULL,
    token_key uuid GENERATED ALWAYS AS ((md5(token))::uuid) STORED NOT NULL,
    installation_id uuid,
    resolved_by text NOT NULL,
    channel text NOT NULL,
    campaign text,
    sent_at timestamp with time zone NOT NULL,
    status integer NOT NULL,
    reason text,
    apns_id text,
    unregistered_at timestamp with time zone,
    priority integer,
    push_type text,
    environment text,
    latency_ms integer,
    received_at timestamp with time zone NOT NULL,
    response_body text,
    collapse_id text,
    expires_at timestamp with time zone,
    CONSTRAINT sends_provider_check CHECK ((provider = ANY (ARRAY['apns'::text, 'fcm'::text]))),
    CONSTRAINT sends_resolved_by_check CHECK ((resolved_by = ANY (ARRAY['explicit'::text, 'token'::text, 'unresolved'::text])))
)
PARTITION BY RANGE (sent_at);


--
-- Name: open_landings; Type: VIEW; Schema: public; Owner: -
--

CREATE VIEW public.open_landings AS
 SELECT o.app_id,
    o.event_id,
    o.installation_id,
    o.platform,
    o.app_version,
    o.notification_id,
    o.action,
    o.link,
    o.landed,
    (o.landed = ANY (ARRAY['fallback'::text, 'rejected'::text])) AS misrouted,
    o.at,
    o.occurred_at,
    o.received_at,
    s.channel,
    s.campaign,
    s.provider
   FROM (public.notification_opens o
     LEFT JOIN LATERAL ( SELECT s_1.channel,
            s_1.campaign,
            s_1.provider
           FROM public.sends s_1
          WHERE ((s_1.app_id = o.app_id) AND (s_1.notification_id = o.notification_id))
          ORDER BY s_1.sent_at DESC, s_1.event_id DESC
         LIMIT 1) s ON (true));


--
-- Name: open_landings_daily; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.open_landings_daily (
    app_id text NOT NULL,
    day date NOT NULL,
    channel text NOT NULL,
    campaign text,
    opens integer NOT NULL,
    landed_reported integer NOT NULL,
    misrouted integer NOT NULL
);


--
-- Name: open_landings_days; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.open_landings_days (
    app_id text NOT NULL,
    day date NOT NULL,
    refreshed_at timestamp with time zone NOT NULL
);


--
-- Name: permission_prompts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.permission_prompts (
    app_id text NOT NULL,
    event_id uuid NOT NULL,
    installation_id uuid NOT NULL,
    platform text NOT NULL,
    app_version text,
    os_version text,
    sdk_int integer,
    placement text NOT NULL,
    prompt text NOT NULL,
    result text NOT NULL,
    at timestamp with time zone NOT NULL,
    occurred_at timestamp with time zone NOT NULL,
    received_at timestamp with time zone NOT NULL,
    CONSTRAINT permission_prompts_prompt_check CHECK ((prompt = ANY (ARRAY['system'::text, 'primer'::text]))),
    CONSTRAINT permission_prompts_result_check CHECK ((result = ANY (ARRAY['granted'::text, 'provisional'::text, 'denied'::text, 'dismissed'::text, 'already_determined'::text])))
);


--
-- Name: prompt_cohort_members; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.prompt_cohort_members (
    app_id text NOT NULL,
    installation_id uuid NOT NULL,
    experiment text NOT NULL,
    day date NOT NULL,
    joined_at timestamp with time zone NOT NULL,
    cohort text NOT NULL,
    platform text NOT NULL,
    first_event_at timestamp with time zone NOT NULL,
    first_prompt_at timestamp with time zone,
    first_prompt_result text,
    can_display_now boolean NOT NULL,
    retained_eligible boolean NOT NULL,
    retained boolean NOT NULL
);


--
-- Name: prompt_cohorts_daily; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.prompt_cohorts_daily (
    app_id text NOT NULL,
    experiment text,
    day date NOT NULL,
    cohort text NOT NULL,
    platform text NOT NULL,
    installs integer NOT NULL,
    prompted integer NOT NULL,
    granted integer NOT NULL,
    provisional integer NOT NULL,
    reached integer NOT NULL,
    granted_without_prompt integer NOT NULL,
    retained_eligible integer NOT NULL,
    retained integer NOT NULL,
    hours_to_prompt double precision[] NOT NULL,
    as_of timestamp with time zone NOT NULL,
    refreshed_at timestamp with time zone NOT NULL
);


--
-- Name: prompt_rollup_dirty_installations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.prompt_rollup_dirty_installations (
    app_id text NOT NULL,
    installation_id uuid NOT NULL,
    due_at timestamp with time zone NOT NULL,
    marked_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: prompt_rollup_state; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.prompt_rollup_state (
    singleton boolean DEFAULT true NOT NULL,
    as_of timestamp with time zone NOT NULL,
    refreshed_at timestamp with time zone NOT NULL,
    CONSTRAINT prompt_rollup_state_singleton_check CHECK (singleton)
);


--
-- Name: push_tokens; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.push_tokens (
    app_id text NOT NULL,
    provider text NOT NULL,
    token_key uuid NOT NULL,
    token text NOT NULL,
    environment text,
    installation_id uuid,
    first_registered_at timestamp with time zone,
    last_registered_at timestamp with time zone,
    invalidated_at timestamp with time zone,
    invalidated_status integer,
    invalidated_reason text,
    unregistered_at timestamp with time zone,
    is_valid boolean GENERATED ALWAYS AS (((invalidated_at IS NULL) OR COALESCE((last_registered_at > invalidated_at), false))) STORED NOT NULL,
    CONSTRAINT push_tokens_provider_check CHECK ((provider = ANY (ARRAY['apns'::text, 'fcm'::text])))
);


--
-- Name: pushledger_settings; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.pushledger_settings (
    singleton boolean DEFAULT true NOT NULL,
    partition_granularity text DEFAULT 'monthly'::text NOT NULL,
    CONSTRAINT pushledger_settings_partition_granularity_check CHECK ((partition_granularity = ANY (ARRAY['monthly'::text, 'daily'::text]))),
    CONSTRAINT pushledger_settings_singleton_check CHECK (singleton)
);


--
-- Name: pushledger_stage_channels_shape; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.pushledger_stage_channels_shape (
    seq integer NOT NULL,
    channel_id text NOT NULL,
    importance integer NOT NULL,
    group_id text,
    group_blocked boolean
);
ALTER TABLE ONLY public.pushledger_stage_channels_shape ALTER COLUMN channel_id SET STORAGE PLAIN;
ALTER TABLE ONLY public.pushledger_stage_channels_shape ALTER COLUMN group_id SET STORAGE PLAIN;


--
-- Name: pushledger_stage_sends_shape; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.pushledger_stage_sends_shape (
    seq integer NOT NULL,
    unit integer NOT NULL,
    app_id text NOT NULL,
    event_id uuid NOT NULL,
    notification_id uuid NOT NULL,
    provider text NOT NULL,
    token text NOT NULL,
    installation_id uuid,
    channel text NOT NULL,
    campaign text,
    sent_at timestamp with time zone NOT NULL,
    status integer NOT NULL,
    reason text,
    apns_id text,
    unregistered_at timestamp with time zone,
    priority integer,
    push_type text,
    environment text,
    latency_ms integer,
    received_at timestamp with time zone NOT NULL,
    response_body text,
    collapse_id text,
    expires_at timestamp with time zone
);
ALTER TABLE ONLY public.pushledger_stage_sends_shape ALTER COLUMN app_id SET STORAGE PLAIN;
ALTER TABLE ONLY public.pushledger_stage_sends_shape ALTER COLUMN provider SET STORAGE PLAIN;
ALTER TABLE ONLY public.pushledger_stage_sends_shape ALTER COLUMN token SET STORAGE PLAIN;
ALTER TABLE ONLY public.pushledger_stage_sends_shape ALTER COLUMN channel SET STORAGE PLAIN;
ALTER TABLE ONLY public.pushledger_stage_sends_shape ALTER COLUMN campaign SET STORAGE PLAIN;
ALTER TABLE ONLY public.pushledger_stage_sends_shape ALTER COLUMN reason SET STORAGE PLAIN;
ALTER TABLE ONLY public.pushledger_stage_sends_shape ALTER COLUMN apns_id SET STORAGE PLAIN;
ALTER TABLE ONLY public.pushledger_stage_sends_shape ALTER COLUMN push_type SET STORAGE PLAIN;
ALTER TABLE ONLY public.pushledger_stage_sends_shape ALTER COLUMN environment SET STORAGE PLAIN;
ALTER TABLE ONLY public.pushledger_stage_sends_shape ALTER COLUMN response_body SET STORAGE PLAIN;
ALTER TABLE ONLY public.pushledger_stage_sends_shape ALTER COLUMN collapse_id SET STORAGE PLAIN;


--
-- Name: pushledger_stage_telemetry_shape; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.pushledger_stage_telemetry_shape (
    seq integer NOT NULL,
    unit integer NOT NULL,
    app_id text NOT NULL,
    event_id uuid NOT NULL,
    installation_id uuid NOT NULL,
    platform text NOT NULL,
    app_version text,
    os_version text,
    sdk_int integer,
    type text NOT NULL,
    at timestamp with time zone NOT NULL,
    occurred_at timestamp with time zone NOT NULL,
    received_at timestamp with time zone NOT NULL,
    authorization_status text,
    alert_setting text,
    sound_setting text,
    badge_setting text,
    lock_screen_setting text,
    notification_center_setting text,
    time_sensitive_setting text,
    scheduled_delivery_setting text,
    alert_style text,
    notifications_enabled boolean,
    post_notifications text,
    channel_count integer,
    placement text,
    prompt text,
    result text,
    experiment text,
    variant text,
    provider text,
    token text,
    environment text,
    notification_id uuid,
    channel text,
    displayed boolean,
    action text,
    link text,
    landed text,
    standby_bucket text,
    background_restricted boolean,
    ignoring_battery_optimizations boolean,
    force_stopped_before_start boolean,
    low_power_mode boolean
);
ALTER TABLE ONLY public.pushledger_stage_telemetry_shape ALTER COLUMN app_id SET STORAGE PLAIN;
ALTER TABLE ONLY public.pushledger_stage_telemetry_shape ALTER COLUMN platform SET STORAGE PLAIN;
ALTER TABLE ONLY public.pushledger_stage_telemetry_shape ALTER COLUMN app_version SET STORAGE PLAIN;
ALTER TABLE ONLY public.pushledger_stage_telemetry_shape ALTER COLUMN os_version SET STORAGE PLAIN;
ALTER TABLE ONLY public.pushledger_stage_telemetry_shape ALTER COLUMN type SET STORAGE PLAIN;
ALTER TABLE ONLY public.pushledger_stage_telemetry_shape ALTER COLUMN authorization_status SET STORAGE PLAIN;
ALTER TABLE ONLY public.pushledger_stage_telemetry_shape ALTER COLUMN alert_setting SET STORAGE PLAIN;
ALTER TABLE ONLY public.pushledger_stage_telemetry_shape ALTER COLUMN sound_setting SET STORAGE PLAIN;
ALTER TABLE ONLY public.pushledger_stage_telemetry_shape ALTER COLUMN badge_setting SET STORAGE PLAIN;
ALTER TABLE ONLY public.pushledger_stage_telemetry_shape ALTER COLUMN lock_screen_setting SET STORAGE PLAIN;
ALTER TABLE ONLY public.pushledger_stage_telemetry_shape ALTER COLUMN notification_center_setting SET STORAGE PLAIN;
ALTER TABLE ONLY public.pushledger_stage_telemetry_shape ALTER COLUMN time_sensitive_setting SET STORAGE PLAIN;
ALTER TABLE ONLY public.pushledger_stage_telemetry_shape ALTER COLUMN scheduled_delivery_setting SET STORAGE PLAIN;
ALTER TABLE ONLY public.pushledger_stage_telemetry_shape ALTER COLUMN alert_style SET STORAGE PLAIN;
ALTER TABLE ONLY public.pushledger_stage_telemetry_shape ALTER COLUMN post_notifications SET STORAGE PLAIN;
ALTER TABLE ONLY public.pushledger_stage_telemetry_shape ALTER COLUMN placement SET STORAGE PLAIN;
ALTER TABLE ONLY public.pushledger_stage_telemetry_shape ALTER COLUMN prompt SET STORAGE PLAIN;
ALTER TABLE ONLY public.pushledger_stage_telemetry_shape ALTER COLUMN result SET STORAGE PLAIN;
ALTER TABLE ONLY public.pushledger_stage_telemetry_shape ALTER COLUMN experiment SET STORAGE PLAIN;
ALTER TABLE ONLY public.pushledger_stage_telemetry_shape ALTER COLUMN variant SET STORAGE PLAIN;
ALTER TABLE ONLY public.pushledger_stage_telemetry_shape ALTER COLUMN provider SET STORAGE PLAIN;
ALTER TABLE ONLY public.pushledger_stage_telemetry_shape ALTER COLUMN token SET STORAGE PLAIN;
ALTER TABLE ONLY public.pushledger_stage_telemetry_shape ALTER COLUMN environment SET STORAGE PLAIN;
ALTER TABLE ONLY public.pushledger_stage_telemetry_shape ALTER COLUMN channel SET STORAGE PLAIN;
ALTER TABLE ONLY public.pushledger_stage_telemetry_shape ALTER COLUMN action SET STORAGE PLAIN;
ALTER TABLE ONLY public.pushledger_stage_telemetry_shape ALTER COLUMN link SET STORAGE PLAIN;
ALTER TABLE ONLY public.pushledger_stage_telemetry_shape ALTER COLUMN landed SET STORAGE PLAIN;
ALTER TABLE ONLY public.pushledger_stage_telemetry_shape ALTER COLUMN standby_bucket SET STORAGE PLAIN;


--
-- Name: rollup_dirty_days; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.rollup_dirty_days (
    app_id text NOT NULL,
    day date NOT NULL,
    marked_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: rollup_inputs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.rollup_inputs (
    app_id text NOT NULL,
    kind text NOT NULL,
    keys uuid[] NOT NULL,
    times timestamp with time zone[] NOT NULL,
    providers text[],
    due_at timestamp with time zone NOT NULL,
    queued_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT rollup_inputs_kind_check CHECK ((kind = ANY (ARRAY['send'::text, 'token'::text, 'registration'::text, 'receipt'::text, 'open'::text, 'snapshot'::text, 'installation'::text, 'life'::text, 'notification'::text])))
);


--
-- Name: rollup_refresh_state; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.rollup_refresh_state (
    singleton boolean DEFAULT true NOT NULL,
    as_of timestamp with time zone NOT NULL,
    window_length interval NOT NULL,
    refreshed_at timestamp with time zone NOT NULL,
    full_at timestamp with time zone,
    reclassified bigint NOT NULL,
    pass_started_at timestamp with time zone,
    pass_seconds double precision,
    CONSTRAINT rollup_refresh_state_singleton_check CHECK (singleton)
);


--
-- Name: schema_definitions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.schema_definitions (
    path text NOT NULL,
    checksum text NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: schema_migrations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.schema_migrations (
    version integer NOT NULL,
    name text NOT NULL,
    checksum text NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: send_rejections_daily; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.send_rejections_daily (
    app_id text NOT NULL,
    day date NOT NULL,
    platform text NOT NULL,
    provider text NOT NULL,
    reason_class text NOT NULL,
    reason text,
    status integer NOT NULL,
    rejected integer NOT NULL,
    refreshed_at timestamp with time zone NOT NULL
);


--
-- Name: send_rollups_daily; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.send_rollups_daily (
    app_id text NOT NULL,
    day date NOT NULL,
    platform text NOT NULL,
    channel text NOT NULL,
    app_version text,
    campaign text,
    provider text NOT NULL,
    sends integer NOT NULL,
    accepted integer NOT NULL,
    rejected integer NOT NULL,
    opened integer NOT NULL,
    received integer NOT NULL,
    pending integer NOT NULL,
    blocked_app integer NOT NULL,
    blocked_channel integer NOT NULL,
    unattributed integer NOT NULL,
    unconfirmed integer NOT NULL,
    token_invalid integer NOT NULL,
    to_invalid_token integer NOT NULL,
    as_of timestamp with time zone NOT NULL,
    refreshed_at timestamp with time zone NOT NULL,
    unattributed_uninstrumented integer DEFAULT 0 NOT NULL,
    os_version text,
    sdk_int integer,
    standby_bucket text,
    background_restricted boolean,
    ignoring_battery_optimizations boolean,
    low_power_mode boolean,
    superseded integer DEFAULT 0 NOT NULL,
    app_stopped integer DEFAULT 0 NOT NULL,
    expired integer DEFAULT 0 NOT NULL,
    device_inactive integer DEFAULT 0 NOT NULL,
    unexplained integer DEFAULT 0 NOT NULL,
    superseded_uninstrumented integer DEFAULT 0 NOT NULL,
    app_stopped_uninstrumented integer DEFAULT 0 NOT NULL,
    expired_uninstrumented integer DEFAULT 0 NOT NULL,
    device_inactive_uninstrumented integer DEFAULT 0 NOT NULL,
    unexplained_uninstrumented integer DEFAULT 0 NOT NULL,
    latency_lt_10s integer DEFAULT 0 NOT NULL,
    latency_lt_1m integer DEFAULT 0 NOT NULL,
    latency_lt_10m integer DEFAULT 0 NOT NULL,
    latency_lt_1h integer DEFAULT 0 NOT NULL,
    latency_lt_6h integer DEFAULT 0 NOT NULL,
    latency_lt_24h integer DEFAULT 0 NOT NULL,
    latency_ge_24h integer DEFAULT 0 NOT NULL
);


--
-- Name: send_rollup_rates_daily; Type: VIEW; Schema: public; Owner: -
--

CREATE VIEW public.send_rollup_rates_daily AS
 SELECT r.app_id,
    r.day,
    r.platform,
    r.channel,
    r.app_version,
    r.campaign,
    r.provider,
    r.sends,
    r.accepted,
    r.rejected,
    r.opened,
    r.received,
    r.pending,
    r.blocked_app,
    r.blocked_channel,
    r.unattributed,
    r.unconfirmed,
    r.token_invalid,
    r.to_invalid_token,
    r.as_of,
    r.refreshed_at,
    r.unattributed_uninstrumented,
    r.os_version,
    r.sdk_int,
    r.standby_bucket,
    r.background_restricted,
    r.ignoring_battery_optimizations,
    r.low_power_mode,
    r.superseded,
    r.app_stopped,
    r.expired,
    r.device_inactive,
    r.unexplained,
    r.superseded_uninstrumented,
    r.app_stopped_uninstrumented,
    r.expired_uninstrumented,
    r.device_inactive_uninstrumented,
    r.unexplained_uninstrumented,
    r.latency_lt_10s,
    r.latency_lt_1m,
    r.latency_lt_10m,
    r.latency_lt_1h,
    r.latency_lt_6h,
    r.latency_lt_24h,
    r.latency_ge_24h,
    x.silent_loss,
    x.known_blocked,
    x.confirmed,
    x.silent_loss_rate,
    x.known_blocked_rate,
    x.unconfirmed_rate,
    x.confirmed_delivery_rate,
    x.open_rate,
    x.open_rate_of_received,
    x.rejection_rate,
    x.token_invalid_rate,
    x.low_volume,
    ((r.superseded)::double precision / (NULLIF(r.accepted, 0))::double precision) AS superseded_rate,
    ((r.app_stopped)::double precision / (NULLIF(r.accepted, 0))::double precision) AS app_stopped_rate,
    ((r.expired)::double precision / (NULLIF(r.accepted, 0))::double precision) AS expired_rate,
    ((r.device_inactive)::double precision / (NULLIF(r.accepted, 0))::double precision) AS device_inactive_rate,
    ((r.unexplained)::double precision / (NULLIF(r.accepted, 0))::double precision) AS unexplained_rate,
    ((((r.latency_lt_6h + r.latency_lt_24h) + r.latency_ge_24h))::double precision / (NULLIF((r.received + r.opened), 0))::double precision) AS late_share
   FROM (public.send_rollups_daily r
     CROSS JOIN LATERAL ( SELECT max(p.numerator) FILTER (WHERE (p.rate = 'silent_loss_rate'::text)) AS silent_loss,
            max(p.numerator) FILTER (WHERE (p.rate = 'known_blocked_rate'::text)) AS known_blocked,
            max(p.numerator) FILTER (WHERE (p.rate = 'confirmed_delivery_rate'::text)) AS confirmed,
            max(p.value) FILTER (WHERE (p.rate = 'silent_loss_rate'::text)) AS silent_loss_rate,
            max(p.value) FILTER (WHERE (p.rate = 'known_blocked_rate'::text)) AS known_blocked_rate,
            max(p.value) FILTER (WHERE (p.rate = 'unconfirmed_rate'::text)) AS unconfirmed_rate,
            max(p.value) FILTER (WHERE (p.rate = 'confirmed_delivery_rate'::text)) AS confirmed_delivery_rate,
            max(p.value) FILTER (WHERE (p.rate = 'open_rate'::text)) AS open_rate,
            max(p.value) FILTER (WHERE (p.rate = 'open_rate_of_received'::text)) AS open_rate_of_received,
            max(p.value) FILTER (WHERE (p.rate = 'rejection_rate'::text)) AS rejection_rate,
            max(p.value) FILTER (WHERE (p.rate = 'token_invalid_rate'::text)) AS token_invalid_rate,
            bool_or(p.low_volume) FILTER (WHERE (p.rate = 'silent_loss_rate'::text)) AS low_volume
           FROM public.pushledger_rates((r.sends)::bigint, (r.accepted)::bigint, (r.rejected)::bigint, (r.opened)::bigint, (r.received)::bigint, (r.blocked_app)::bigint, (r.blocked_channel)::bigint, (r.unconfirmed)::bigint, (r.token_invalid)::bigint) p(rate, numerator, denominator, value, low_volume)) x);


--
-- Name: sends_default; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.sends_default (
    app_id text NOT NULL,
    event_id uuid NOT NULL,
    notification_id uuid NOT NULL,
    provider text NOT NULL,
    token text NOT NULL,
    token_key uuid GENERATED ALWAYS AS ((md5(token))::uuid) STORED NOT NULL,
    installation_id uuid,
    resolved_by text NOT NULL,
    channel text NOT NULL,
    campaign text,
    sent_at timestamp with time zone NOT NULL,
    status integer NOT NULL,
    reason text,
    apns_id text,
    unregistered_at timestamp with time zone,
    priority integer,
    push_type text,
    environment text,
    latency_ms integer,
    received_at timestamp with time zone NOT NULL,
    response_body text,
    collapse_id text,
    expires_at timestamp with time zone,
    CONSTRAINT sends_provider_check CHECK ((provider = ANY (ARRAY['apns'::text, 'fcm'::text]))),
    CONSTRAINT sends_resolved_by_check CHECK ((resolved_by = ANY (ARRAY['explicit'::text, 'token'::text, 'unresolved'::text])))
);


--
-- Name: settings_snapshots; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.settings_snapshots (
    app_id text NOT NULL,
    event_id uuid NOT NULL,
    installation_id uuid NOT NULL,
    platform text NOT NULL,
    app_version text,
    os_version text,
    sdk_int integer,
    authorization_status text,
    alert_setting text,
    sound_setting text,
    badge_setting text,
    lock_screen_setting text,
    notification_center_setting text,
    time_sensitive_setting text,
    scheduled_delivery_setting text,
    alert_style text,
    notifications_enabled boolean,
    post_notifications text,
    channel_count integer,
    can_display boolean GENERATED ALWAYS AS (
CASE platform
    WHEN 'ios'::text THEN COALESCE(((authorization_status = ANY (ARRAY['authorized'::text, 'provisional'::text, 'ephemeral'::text])) AND ((alert_setting = 'enabled'::text) OR (lock_screen_setting = 'enabled'::text) OR (notification_center_setting = 'enabled'::text) OR ((alert_setting IS NULL) AND (lock_screen_setting IS NULL) AND (notification_center_setting IS NULL)))), false)
    ELSE COALESCE(notifications_enabled, false)
END) STORED NOT NULL,
    at timestamp with time zone NOT NULL,
    occurred_at timestamp with time zone NOT NULL,
    received_at timestamp with time zone NOT NULL,
    standby_bucket text,
    background_restricted boolean,
    ignoring_battery_optimizations boolean,
    force_stopped_before_start boolean,
    low_power_mode boolean,
    CONSTRAINT settings_snapshots_platform_check CHECK ((platform = ANY (ARRAY['ios'::text, 'android'::text]))),
    CONSTRAINT settings_snapshots_standby_bucket_check CHECK ((standby_bucket = ANY (ARRAY['active'::text, 'working_set'::text, 'frequent'::text, 'rare'::text, 'restricted'::text])))
)
PARTITION BY RANGE (occurred_at);


--
-- Name: settings_snapshots_default; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.settings_snapshots_default (
    app_id text NOT NULL,
    event_id uuid NOT NULL,
    installation_id uuid NOT NULL,
    platform text NOT NULL,
    app_version text,
    os_version text,
    sdk_int integer,
    authorization_status text,
    alert_setting text,
    sound_setting text,
    badge_setting text,
    lock_screen_setting text,
    notification_center_setting text,
    time_sensitive_setting text,
    scheduled_delivery_setting text,
    alert_style text,
    notifications_enabled boolean,
    post_notifications text,
    channel_count integer,
    can_display boolean GENERATED ALWAYS AS (
CASE platform
    WHEN 'ios'::text THEN COALESCE(((authorization_status = ANY (ARRAY['authorized'::text, 'provisional'::text, 'ephemeral'::text])) AND ((alert_setting = 'enabled'::text) OR (lock_screen_setting = 'enabled'::text) OR (notification_center_setting = 'enabled'::text) OR ((alert_setting IS NULL) AND (lock_screen_setting IS NULL) AND (notification_center_setting IS NULL)))), false)
    ELSE COALESCE(notifications_enabled, false)
END) STORED NOT NULL,
    at timestamp with time zone NOT NULL,
    occurred_at timestamp with time zone NOT NULL,
    received_at timestamp with time zone NOT NULL,
    standby_bucket text,
    background_restricted boolean,
    ignoring_battery_optimizations boolean,
    force_stopped_before_start boolean,
    low_power_mode boolean,
    CONSTRAINT settings_snapshots_platform_check CHECK ((platform = ANY (ARRAY['ios'::text, 'android'::text]))),
    CONSTRAINT settings_snapshots_standby_bucket_check CHECK ((standby_bucket = ANY (ARRAY['active'::text, 'working_set'::text, 'frequent'::text, 'rare'::text, 'restricted'::text])))
);


--
-- Name: token_invalidations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.token_invalidations (
    app_id text NOT NULL,
    provider text NOT NULL,
    token_key uuid NOT NULL,
    token text NOT NULL,
    invalidated_at timestamp with time zone NOT NULL,
    status integer NOT NULL,
    reason text,
    unregistered_at timestamp with time zone,
    feed_xid xid8 NOT NULL,
    CONSTRAINT token_invalidations_provider_check CHECK ((provider = ANY (ARRAY['apns'::text, 'fcm'::text])))
);


--
-- Name: token_registrations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.token_registrations (
    app_id text NOT NULL,
    event_id uuid NOT NULL,
    installation_id uuid NOT NULL,
    platform text NOT NULL,
    app_version text,
    os_version text,
    sdk_int integer,
    provider text NOT NULL,
    token text NOT NULL,
    token_key uuid GENERATED ALWAYS AS ((md5(token))::uuid) STORED NOT NULL,
    environment text,
    at timestamp with time zone NOT NULL,
    occurred_at timestamp with time zone NOT NULL,
    received_at timestamp with time zone NOT NULL,
    CONSTRAINT token_registrations_provider_check CHECK ((provider = ANY (ARRAY['apns'::text, 'fcm'::text])))
);


--
-- Name: channel_states_default; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.channel_states ATTACH PARTITION public.channel_states_default DEFAULT;


--
-- Name: notification_opens_default; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.notification_opens ATTACH PARTITION public.notification_opens_default DEFAULT;


--
-- Name: notification_receipts_default; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.notification_receipts ATTACH PARTITION public.notification_receipts_default DEFAULT;


--
-- Name: sends_default; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sends ATTACH PARTITION public.sends_default DEFAULT;


--
-- Name: settings_snapshots_default; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.settings_snapshots ATTACH PARTITION public.settings_snapshots_default DEFAULT;


--
-- Name: alert_transitions id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.alert_transitions ALTER COLUMN id SET DEFAULT nextval('public.alert_transitions_id_seq'::regclass);


--
-- Name: alert_states alert_states_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.alert_states
    ADD CONSTRAINT alert_states_pkey PRIMARY KEY (rule, app_id, slice);


--
-- Name: alert_transitions alert_transitions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.alert_transitions
    ADD CONSTRAINT alert_transitions_pkey PRIMARY KEY (app_id, id);


--
-- Name: api_keys api_keys_key_hash_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_key_hash_key UNIQUE (key_hash);


--
-- Name: api_keys api_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_pkey PRIMARY KEY (id);


--
-- Name: app_android_identities app_android_identities_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.app_android_identities
    ADD CONSTRAINT app_android_identities_pkey PRIMARY KEY (app_id, package_name, cert_sha256);


--
-- Name: app_ios_identities app_ios_identities_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.app_ios_identities
    ADD CONSTRAINT app_ios_identities_pkey PRIMARY KEY (app_id, ios_app_id);


--
-- Name: channel_states channel_states_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.channel_states
    ADD CONSTRAINT channel_states_pkey PRIMARY KEY (app_id, occurred_at, snapshot_event_id, channel_id);


--
-- Name: channel_states_default channel_states_default_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.channel_states_default
    ADD CONSTRAINT channel_states_default_pkey PRIMARY KEY (app_id, occurred_at, snapshot_event_id, channel_id);


--
-- Name: erasures erasures_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.erasures
    ADD CONSTRAINT erasures_pkey PRIMARY KEY (app_id, subject, subject_hash);


--
-- Name: event_ids event_ids_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.event_ids
    ADD CONSTRAINT event_ids_pkey PRIMARY KEY (app_id, event_id);


--
-- Name: experiment_exposures experiment_exposures_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.experiment_exposures
    ADD CONSTRAINT experiment_exposures_pkey PRIMARY KEY (app_id, event_id);


--
-- Name: failed_events failed_events_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.failed_events
    ADD CONSTRAINT failed_events_pkey PRIMARY KEY (app_id, id);


--
-- Name: fcm_delivery_data fcm_delivery_data_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.fcm_delivery_data
    ADD CONSTRAINT fcm_delivery_data_pkey PRIMARY KEY (app_id, fcm_app_id, day, analytics_label);


--
-- Name: installations installations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.installations
    ADD CONSTRAINT installations_pkey PRIMARY KEY (app_id, installation_id);


--
-- Name: instrumented_slices_daily instrumented_slices_daily_app_id_day_platform_app_version_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.instrumented_slices_daily
    ADD CONSTRAINT instrumented_slices_daily_app_id_day_platform_app_version_key UNIQUE NULLS NOT DISTINCT (app_id, day, platform, app_version);


--
-- Name: link_check_results link_check_results_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.link_check_results
    ADD CONSTRAINT link_check_results_pkey PRIMARY KEY (app_id, id);


--
-- Name: notification_opens notification_opens_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.notification_opens
    ADD CONSTRAINT notification_opens_pkey PRIMARY KEY (app_id, occurred_at, event_id);


--
-- Name: notification_opens_default notification_opens_default_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.notification_opens_default
    ADD CONSTRAINT notification_opens_default_pkey PRIMARY KEY (app_id, occurred_at, event_id);


--
-- Name: notification_receipts notification_receipts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.notification_receipts
    ADD CONSTRAINT notification_receipts_pkey PRIMARY KEY (app_id, occurred_at, event_id);


--
-- Name: notification_receipts_default notification_receipts_default_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.notification_receipts_default
    ADD CONSTRAINT notification_receipts_default_pkey PRIMARY KEY (app_id, occurred_at, event_id);


--
-- Name: open_landing_notifications open_landing_notifications_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.open_landing_notifications
    ADD CONSTRAINT open_landing_notifications_pkey PRIMARY KEY (app_id, notification_id);


--
-- Name: open_landings_daily open_landings_daily_app_id_day_channel_campaign_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.open_landings_daily
    ADD CONSTRAINT open_landings_daily_app_id_day_channel_campaign_key UNIQUE NULLS NOT DISTINCT (app_id, day, channel, campaign);


--
-- Name: open_landings_days open_landings_days_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.open_landings_days
    ADD CONSTRAINT open_landings_days_pkey PRIMARY KEY (app_id, day);


--
-- Name: permission_prompts permission_prompts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.permission_prompts
    ADD CONSTRAINT permission_prompts_pkey PRIMARY KEY (app_id, event_id);


--
-- Name: prompt_cohort_members prompt_cohort_members_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.prompt_cohort_members
    ADD CONSTRAINT prompt_cohort_members_pkey PRIMARY KEY (app_id, installation_id, experiment);


--
-- Name: prompt_cohorts_daily prompt_cohorts_daily_app_id_experiment_day_cohort_platform_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.prompt_cohorts_daily
    ADD CONSTRAINT prompt_cohorts_daily_app_id_experiment_day_cohort_platform_key UNIQUE NULLS NOT DISTINCT (app_id, experiment, day, cohort, platform);


--
-- Name: prompt_rollup_state prompt_rollup_state_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.prompt_rollup_state
    ADD CONSTRAINT prompt_rollup_state_pkey PRIMARY KEY (singleton);


--
-- Name: push_tokens push_tokens_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.push_tokens
    ADD CONSTRAINT push_tokens_pkey PRIMARY KEY (app_id, provider, token_key);


--
-- Name: pushledger_settings pushledger_settings_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.pushledger_settings
    ADD CONSTRAINT pushledger_settings_pkey PRIMARY KEY (singleton);


--
-- Name: rollup_refresh_state rollup_refresh_state_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.rollup_refresh_state
    ADD CONSTRAINT rollup_refresh_state_pkey PRIMARY KEY (singleton);


--
-- Name: schema_definitions schema_definitions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.schema_definitions
    ADD CONSTRAINT schema_definitions_pkey PRIMARY KEY (path);


--
-- Name: schema_migrations schema_migrations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.schema_migrations
    ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (version);


--
-- Name: send_outcomes send_outcomes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.send_outcomes
    ADD CONSTRAINT send_outcomes_pkey PRIMARY KEY (app_id, sent_at, event_id);


--
-- Name: send_rejections_daily send_rejections_daily_app_id_day_platform_provider_reason_c_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.send_rejections_daily
    ADD CONSTRAINT send_rejections_daily_app_id_day_platform_provider_reason_c_key UNIQUE NULLS NOT DISTINCT (app_id, day, platform, provider, reason_class, reason, status);


--
-- Name: send_rollups_daily send_rollups_daily_slice; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.send_rollups_daily
    ADD CONSTRAINT send_rollups_daily_slice UNIQUE NULLS NOT DISTINCT (app_id, day, platform, channel, app_version, campaign, provider, os_version, sdk_int, standby_bucket, background_restricted, ignoring_battery_optimizations, low_power_mode);


--
-- Name: sends sends_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sends
    ADD CONSTRAINT sends_pkey PRIMARY KEY (app_id, sent_at, event_id);


--
-- Name: sends_default sends_default_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sends_default
    ADD CONSTRAINT sends_default_pkey PRIMARY KEY (app_id, sent_at, event_id);


--
-- Name: settings_snapshots settings_snapshots_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.settings_snapshots
    ADD CONSTRAINT settings_snapshots_pkey PRIMARY KEY (app_id, occurred_at, event_id);


--
-- Name: settings_snapshots_default settings_snapshots_default_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.settings_snapshots_default
    ADD CONSTRAINT settings_snapshots_default_pkey PRIMARY KEY (app_id, occurred_at, event_id);


--
-- Name: token_invalidations token_invalidations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.token_invalidations
    ADD CONSTRAINT token_invalidations_pkey PRIMARY KEY (app_id, provider, token_key);


--
-- Name: token_registrations token_registrations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.token_registrations
    ADD CONSTRAINT token_registrations_pkey PRIMARY KEY (app_id, event_id);


--
-- Name: alert_transitions_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX alert_transitions_at ON public.alert_transitions USING btree (at);


--
-- Name: alert_transitions_slice; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX alert_transitions_slice ON public.alert_transitions USING btree (rule, app_id, slice, at);


--
-- Name: api_keys_app; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX api_keys_app ON public.api_keys USING btree (app_id);


--
-- Name: channel_states_as_of; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX channel_states_as_of ON ONLY public.channel_states USING btree (app_id, installation_id, channel_id, occurred_at);


--
-- Name: channel_states_default_app_id_installation_id_channel_id_oc_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX channel_states_default_app_id_installation_id_channel_id_oc_idx ON public.channel_states_default USING btree (app_id, installation_id, channel_id, occurred_at);


--
-- Name: event_ids_received_brin; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX event_ids_received_brin ON public.event_ids USING brin (received_at);


--
-- Name: experiment_exposures_installation; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX experiment_exposures_installation ON public.experiment_exposures USING btree (app_id, installation_id);


--
-- Name: experiment_exposures_installation_time; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX experiment_exposures_installation_time ON public.experiment_exposures USING btree (app_id, installation_id, occurred_at);


--
-- Name: experiment_exposures_lookup; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX experiment_exposures_lookup ON public.experiment_exposures USING btree (app_id, experiment, installation_id, occurred_at);


--
-- Name: failed_events_app_time; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX failed_events_app_time ON public.failed_events USING btree (app_id, received_at);


--
-- Name: failed_events_installation; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX failed_events_installation ON public.failed_events USING btree (app_id, installation_id) WHERE (installation_id IS NOT NULL);


--
-- Name: failed_events_token; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX failed_events_token ON public.failed_events USING btree (app_id, ((md5(token))::uuid)) WHERE (token IS NOT NULL);


--
-- Name: fcm_delivery_data_app_day; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX fcm_delivery_data_app_day ON public.fcm_delivery_data USING btree (app_id, day);


--
-- Name: installations_app_received; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX installations_app_received ON public.installations USING btree (app_id, last_received_at);


--
-- Name: link_check_results_latest; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX link_check_results_latest ON public.link_check_results USING btree (app_id, domain, checked_at DESC);


--
-- Name: notification_opens_installation; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX notification_opens_installation ON ONLY public.notification_opens USING btree (app_id, installation_id, occurred_at);


--
-- Name: notification_opens_default_app_id_installation_id_occurred__idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX notification_opens_default_app_id_installation_id_occurred__idx ON public.notification_opens_default USING btree (app_id, installation_id, occurred_at);


--
-- Name: notification_opens_notification; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX notification_opens_notification ON ONLY public.notification_opens USING btree (app_id, notification_id);


--
-- Name: notification_opens_default_app_id_notification_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX notification_opens_default_app_id_notification_id_idx ON public.notification_opens_default USING btree (app_id, notification_id);


--
-- Name: notification_receipts_installation; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX notification_receipts_installation ON ONLY public.notification_receipts USING btree (app_id, installation_id, occurred_at);


--
-- Name: notification_receipts_default_app_id_installation_id_occurr_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX notification_receipts_default_app_id_installation_id_occurr_idx ON public.notification_receipts_default USING btree (app_id, installation_id, occurred_at);


--
-- Name: notification_receipts_notification; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX notification_receipts_notification ON ONLY public.notification_receipts USING btree (app_id, notification_id);


--
-- Name: notification_receipts_default_app_id_notification_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX notification_receipts_default_app_id_notification_id_idx ON public.notification_receipts_default USING btree (app_id, notification_id);


--
-- Name: permission_prompts_installation; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX permission_prompts_installation ON public.permission_prompts USING btree (app_id, installation_id, occurred_at);


--
-- Name: permission_prompts_time; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX permission_prompts_time ON public.permission_prompts USING btree (app_id, occurred_at);


--
-- Name: prompt_cohort_members_day; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX prompt_cohort_members_day ON public.prompt_cohort_members USING btree (app_id, experiment, day);


--
-- Name: push_tokens_installation; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX push_tokens_installation ON public.push_tokens USING btree (app_id, installation_id);


--
-- Name: rollup_dirty_days_app_day; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX rollup_dirty_days_app_day ON public.rollup_dirty_days USING btree (app_id, day);


--
-- Name: send_outcomes_cause; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX send_outcomes_cause ON public.send_outcomes USING btree (app_id, installation_id, sent_at) WHERE (cause IS NOT NULL);


--
-- Name: send_outcomes_first_life; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX send_outcomes_first_life ON public.send_outcomes USING btree (app_id, first_life_notification) WHERE (first_life_notification IS NOT NULL);


--
-- Name: send_outcomes_pending; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX send_outcomes_pending ON public.send_outcomes USING btree (app_id, sent_at) WHERE (outcome = 'pending'::text);


--
-- Name: send_outcomes_uninstrumented; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX send_outcomes_uninstrumented ON public.send_outcomes USING btree (app_id, day, platform, app_version) WHERE (NOT instrumented);


--
-- Name: send_rollups_daily_pending; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX send_rollups_daily_pending ON public.send_rollups_daily USING btree (app_id, day) WHERE (pending > 0);


--
-- Name: sends_installation; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sends_installation ON ONLY public.sends USING btree (app_id, installation_id, sent_at);


--
-- Name: sends_default_app_id_installation_id_sent_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sends_default_app_id_installation_id_sent_at_idx ON public.sends_default USING btree (app_id, installation_id, sent_at);


--
-- Name: sends_notification; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sends_notification ON ONLY public.sends USING btree (app_id, notification_id);


--
-- Name: sends_default_app_id_notification_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sends_default_app_id_notification_id_idx ON public.sends_default USING btree (app_id, notification_id);


--
-- Name: sends_token; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sends_token ON ONLY public.sends USING btree (app_id, provider, token_key, sent_at);


--
-- Name: sends_default_app_id_provider_token_key_sent_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sends_default_app_id_provider_token_key_sent_at_idx ON public.sends_default USING btree (app_id, provider, token_key, sent_at);


--
-- Name: sends_token_invalid; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sends_token_invalid ON ONLY public.sends USING btree (app_id, provider, token_key, sent_at) WHERE (public.pushledger_reason_class(status, reason) = 'token_invalid'::text);


--
-- Name: sends_default_app_id_provider_token_key_sent_at_idx1; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sends_default_app_id_provider_token_key_sent_at_idx1 ON public.sends_default USING btree (app_id, provider, token_key, sent_at) WHERE (public.pushledger_reason_class(status, reason) = 'token_invalid'::text);


--
-- Name: settings_snapshots_as_of; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX settings_snapshots_as_of ON ONLY public.settings_snapshots USING btree (app_id, installation_id, occurred_at, received_at, event_id);


--
-- Name: settings_snapshots_default_app_id_installation_id_occurred__idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX settings_snapshots_default_app_id_installation_id_occurred__idx ON public.settings_snapshots_default USING btree (app_id, installation_id, occurred_at, received_at, event_id);


--
-- Name: token_invalidations_feed; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX token_invalidations_feed ON public.token_invalidations USING btree (app_id, feed_xid, provider, token_key);


--
-- Name: token_registrations_installation; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX token_registrations_installation ON public.token_registrations USING btree (app_id, installation_id, occurred_at);


--
-- Name: token_registrations_lookup; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX token_registrations_lookup ON public.token_registrations USING btree (app_id, provider, token_key, occurred_at, received_at, event_id);


--
-- Name: channel_states_default_app_id_installation_id_channel_id_oc_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.channel_states_as_of ATTACH PARTITION public.channel_states_default_app_id_installation_id_channel_id_oc_idx;


--
-- Name: channel_states_default_pkey; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.channel_states_pkey ATTACH PARTITION public.channel_states_default_pkey;


--
-- Name: notification_opens_default_app_id_installation_id_occurred__idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.notification_opens_installation ATTACH PARTITION public.notification_opens_default_app_id_installation_id_occurred__idx;


--
-- Name: notification_opens_default_app_id_notification_id_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.notification_opens_notification ATTACH PARTITION public.notification_opens_default_app_id_notification_id_idx;


--
-- Name: notification_opens_default_pkey; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.notification_opens_pkey ATTACH PARTITION public.notification_opens_default_pkey;


--
-- Name: notification_receipts_default_app_id_installation_id_occurr_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.notification_receipts_installation ATTACH PARTITION public.notification_receipts_default_app_id_installation_id_occurr_idx;


--
-- Name: notification_receipts_default_app_id_notification_id_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.notification_receipts_notification ATTACH PARTITION public.notification_receipts_default_app_id_notification_id_idx;


--
-- Name: notification_receipts_default_pkey; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.notification_receipts_pkey ATTACH PARTITION public.notification_receipts_default_pkey;


--
-- Name: sends_default_app_id_installation_id_sent_at_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.sends_installation ATTACH PARTITION public.sends_default_app_id_installation_id_sent_at_idx;


--
-- Name: sends_default_app_id_notification_id_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.sends_notification ATTACH PARTITION public.sends_default_app_id_notification_id_idx;


--
-- Name: sends_default_app_id_provider_token_key_sent_at_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.sends_token ATTACH PARTITION public.sends_default_app_id_provider_token_key_sent_at_idx;


--
-- Name: sends_default_app_id_provider_token_key_sent_at_idx1; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.sends_token_invalid ATTACH PARTITION public.sends_default_app_id_provider_token_key_sent_at_idx1;


--
-- Name: sends_default_pkey; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.sends_pkey ATTACH PARTITION public.sends_default_pkey;


--
-- Name: settings_snapshots_default_app_id_installation_id_occurred__idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.settings_snapshots_as_of ATTACH PARTITION public.settings_snapshots_default_app_id_installation_id_occurred__idx;


--
-- Name: settings_snapshots_default_pkey; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.settings_snapshots_pkey ATTACH PARTITION public.settings_snapshots_default_pkey;


--
-- Name: experiment_exposures experiment_exposures_life; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER experiment_exposures_life AFTER INSERT ON public.experiment_exposures REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION public.pushledger_queue_life();


--
-- Name: experiment_exposures experiment_exposures_life_delete; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER experiment_exposures_life_delete AFTER DELETE ON public.experiment_exposures REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION public.pushledger_queue_life();


--
-- Name: experiment_exposures experiment_exposures_prompt_dirty; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER experiment_exposures_prompt_dirty AFTER INSERT ON public.experiment_exposures REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION public.pushledger_mark_dirty_prompt_members();


--
-- Name: installations installations_dirty_insert; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER installations_dirty_insert AFTER INSERT ON public.installations REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION public.pushledger_queue_installations();


--
-- Name: installations installations_dirty_platform; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER installations_dirty_platform AFTER UPDATE ON public.installations FOR EACH ROW WHEN ((old.platform IS DISTINCT FROM new.platform)) EXECUTE FUNCTION public.pushledger_queue_installation_platform();


--
-- Name: installations installations_prompt_dirty; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER installations_prompt_dirty AFTER UPDATE ON public.installations FOR EACH ROW WHEN (((old.first_seen_at IS DISTINCT FROM new.first_seen_at) OR (old.platform IS DISTINCT FROM new.platform))) EXECUTE FUNCTION public.pushledger_mark_dirty_prompt_installation();


--
-- Name: notification_opens notification_opens_dirty; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER notification_opens_dirty AFTER INSERT ON public.notification_opens REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION public.pushledger_queue_confirmations();


--
-- Name: notification_opens notification_opens_dirty_delete; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER notification_opens_dirty_delete AFTER DELETE ON public.notification_opens REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION public.pushledger_queue_confirmations();


--
-- Name: notification_opens notification_opens_life; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER notification_opens_life AFTER INSERT ON public.notification_opens REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION public.pushledger_queue_life();


--
-- Name: notification_opens notification_opens_life_delete; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER notification_opens_life_delete AFTER DELETE ON public.notification_opens REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION public.pushledger_queue_life();


--
-- Name: notification_receipts notification_receipts_dirty; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER notification_receipts_dirty AFTER INSERT ON public.notification_receipts REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION public.pushledger_queue_confirmations();


--
-- Name: notification_receipts notification_receipts_dirty_delete; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER notification_receipts_dirty_delete AFTER DELETE ON public.notification_receipts REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION public.pushledger_queue_confirmations();


--
-- Name: notification_receipts notification_receipts_life; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER notification_receipts_life AFTER INSERT ON public.notification_receipts REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION public.pushledger_queue_life();


--
-- Name: notification_receipts notification_receipts_life_delete; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER notification_receipts_life_delete AFTER DELETE ON public.notification_receipts REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION public.pushledger_queue_life();


--
-- Name: permission_prompts permission_prompts_life; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER permission_prompts_life AFTER INSERT ON public.permission_prompts REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION public.pushledger_queue_life();


--
-- Name: permission_prompts permission_prompts_life_delete; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER permission_prompts_life_delete AFTER DELETE ON public.permission_prompts REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION public.pushledger_queue_life();


--
-- Name: permission_prompts permission_prompts_prompt_dirty; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER permission_prompts_prompt_dirty AFTER INSERT ON public.permission_prompts REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION public.pushledger_mark_dirty_prompt_members();


--
-- Name: sends sends_dirty_delete; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER sends_dirty_delete AFTER DELETE ON public.sends REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION public.pushledger_queue_sends();


--
-- Name: sends sends_dirty_insert; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER sends_dirty_insert AFTER INSERT ON public.sends REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION public.pushledger_queue_sends();


--
-- Name: sends sends_dirty_update_new; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER sends_dirty_update_new AFTER UPDATE ON public.sends REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION public.pushledger_queue_sends();


--
-- Name: sends sends_dirty_update_old; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER sends_dirty_update_old AFTER UPDATE ON public.sends REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION public.pushledger_queue_sends();


--
-- Name: settings_snapshots settings_snapshots_dirty; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER settings_snapshots_dirty AFTER INSERT ON public.settings_snapshots REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION public.pushledger_queue_snapshots();


--
-- Name: settings_snapshots settings_snapshots_life; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER settings_snapshots_life AFTER INSERT ON public.settings_snapshots REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION public.pushledger_queue_life();


--
-- Name: settings_snapshots settings_snapshots_life_delete; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER settings_snapshots_life_delete AFTER DELETE ON public.settings_snapshots REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION public.pushledger_queue_life();


--
-- Name: settings_snapshots settings_snapshots_prompt_dirty; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER settings_snapshots_prompt_dirty AFTER INSERT ON public.settings_snapshots REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION public.pushledger_mark_dirty_prompt_members();


--
-- Name: token_registrations token_registrations_dirty; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER token_registrations_dirty AFTER INSERT ON public.token_registrations REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION public.pushledger_queue_registrations();


--
-- Name: token_registrations token_registrations_dirty_delete; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER token_registrations_dirty_delete AFTER DELETE ON public.token_registrations REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION public.pushledger_queue_registrations();


--
-- Name: token_registrations token_registrations_life; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER token_registrations_life AFTER INSERT ON public.token_registrations REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION public.pushledger_queue_life();


--
-- Name: token_registrations token_registrations_life_delete; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER token_registrations_life_delete AFTER DELETE ON public.token_registrations REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION public.pushledger_queue_life();


--
-- Name: SCHEMA public; Type: ACL; Schema: -; Owner: -
--

GRANT USAGE ON SCHEMA public TO pushledger_reader;


--
-- Name: TABLE send_outcomes; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.send_outcomes TO pushledger_reader;


--
-- Name: TABLE alert_states; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.alert_states TO pushledger_reader;


--
-- Name: TABLE alert_transitions; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.alert_transitions TO pushledger_reader;


--
-- Name: TABLE app_android_identities; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.app_android_identities TO pushledger_reader;


--
-- Name: TABLE app_ios_identities; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.app_ios_identities TO pushledger_reader;


--
-- Name: TABLE channel_states; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.channel_states TO pushledger_reader;


--
-- Name: TABLE experiment_exposures; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.experiment_exposures TO pushledger_reader;


--
-- Name: TABLE failed_event_reasons; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.failed_event_reasons TO pushledger_reader;


--
-- Name: TABLE fcm_delivery_data; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.fcm_delivery_data TO pushledger_reader;


--
-- Name: TABLE ingested_events; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.ingested_events TO pushledger_reader;


--
-- Name: TABLE installations; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.installations TO pushledger_reader;


--
-- Name: TABLE instrumented_slices_daily; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.instrumented_slices_daily TO pushledger_reader;


--
-- Name: TABLE link_check_results; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.link_check_results TO pushledger_reader;


--
-- Name: TABLE link_check_latest; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.link_check_latest TO pushledger_reader;


--
-- Name: TABLE notification_opens; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.notification_opens TO pushledger_reader;


--
-- Name: TABLE notification_receipts; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.notification_receipts TO pushledger_reader;


--
-- Name: TABLE open_landing_notifications; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.open_landing_notifications TO pushledger_reader;


--
-- Name: TABLE sends; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.sends TO pushledger_reader;


--
-- Name: TABLE open_landings; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.open_landings TO pushledger_reader;


--
-- Name: TABLE open_landings_daily; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.open_landings_daily TO pushledger_reader;


--
-- Name: TABLE open_landings_days; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.open_landings_days TO pushledger_reader;


--
-- Name: TABLE permission_prompts; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.permission_prompts TO pushledger_reader;


--
-- Name: TABLE prompt_cohort_members; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.prompt_cohort_members TO pushledger_reader;


--
-- Name: TABLE prompt_cohorts_daily; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.prompt_cohorts_daily TO pushledger_reader;


--
-- Name: TABLE prompt_rollup_state; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.prompt_rollup_state TO pushledger_reader;


--
-- Name: TABLE push_tokens; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.push_tokens TO pushledger_reader;


--
-- Name: TABLE pushledger_settings; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.pushledger_settings TO pushledger_reader;


--
-- Name: TABLE rollup_refresh_state; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.rollup_refresh_state TO pushledger_reader;


--
-- Name: TABLE send_rejections_daily; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.send_rejections_daily TO pushledger_reader;


--
-- Name: TABLE send_rollups_daily; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.send_rollups_daily TO pushledger_reader;


--
-- Name: TABLE send_rollup_rates_daily; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.send_rollup_rates_daily TO pushledger_reader;


--
-- Name: TABLE settings_snapshots; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.settings_snapshots TO pushledger_reader;


--
-- Name: TABLE token_invalidations; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.token_invalidations TO pushledger_reader;


--
-- Name: TABLE token_registrations; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.token_registrations TO pushledger_reader;


--
-- PostgreSQL database dump complete
--


--
-- PostgreSQL database dump
--


-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Data for Name: alert_states; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: alert_transitions; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: api_keys; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: app_android_identities; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: app_ios_identities; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: channel_states_default; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: erasures; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: event_ids; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: experiment_exposures; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: failed_events; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: fcm_delivery_data; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: installations; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: instrumented_slices_daily; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: link_check_results; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: notification_opens_default; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: notification_receipts_default; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: open_landing_notifications; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: open_landings_daily; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: open_landings_days; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: permission_prompts; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: prompt_cohort_members; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: prompt_cohorts_daily; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: prompt_rollup_dirty_installations; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: prompt_rollup_state; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: push_tokens; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: pushledger_settings; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.pushledger_settings VALUES (true, 'monthly');


--
-- Data for Name: pushledger_stage_channels_shape; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: pushledger_stage_sends_shape; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: pushledger_stage_telemetry_shape; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: rollup_dirty_days; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: rollup_inputs; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: rollup_refresh_state; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: schema_definitions; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.schema_definitions VALUES ('engine/day.sql', 'f1bec297087172b61fb40c66c835bafac2ba10f2df5d4171a20f8d1de46a72dc', '2026-12-02 01:28:41.916894+00');
INSERT INTO public.schema_definitions VALUES ('engine/rejection_class.sql', '75add19d3030b9ab6552047777590a93667db2bd46f3988f9c0816d385df09cf', '2026-12-02 01:28:41.916894+00');
INSERT INTO public.schema_definitions VALUES ('partitions/partitions.sql', '619d4168c24fcbed68c6850a6c60929161b34b5f070bd6e94fc4d0161c2a8276', '2026-12-02 01:28:41.916894+00');
INSERT INTO public.schema_definitions VALUES ('retention/retention.sql', 'f8451d882f5b6f2577614fd82cd5b11739ab15a68256ed4d5b3619fd31776b5b', '2026-12-02 01:28:41.916894+00');
INSERT INTO public.schema_definitions VALUES ('writer/staging.sql', 'fe547ac6d27f8ea1aae9badad6274cab9116536156a31f6bcf135c0f935350e9', '2026-12-02 01:28:41.916894+00');
INSERT INTO public.schema_definitions VALUES ('writer/invalidations.sql', '7d43df1465d0feee266ec734d912a1189476b2b5c8f8aa3ff1dbed4c7c7bf010', '2026-12-02 01:28:41.916894+00');
INSERT INTO public.schema_definitions VALUES ('writer/apply.sql', '7cfc0b3739c57327eb069c2c5938a997d8044ec9e1ba02c012656b69b7523133', '2026-12-02 01:28:41.916894+00');
INSERT INTO public.schema_definitions VALUES ('engine/outcome.sql', 'af5fc996e1b4b9cb36de9bc8373fc9e475d184e51876593873ca5d65f6229cbc', '2026-12-02 01:28:41.916894+00');
INSERT INTO public.schema_definitions VALUES ('engine/dirty_days.sql', '316268bdf6f8f2bf1cfbf06a3635ad7d4fdf732694cd18902b006dfa8006a09e', '2026-12-02 01:28:41.916894+00');
INSERT INTO public.schema_definitions VALUES ('engine/rollups.sql', '8470c04106b01bbb5b9b7fa5a3f8d3972e66fbd4f7d2683da91ead566e89cd2e', '2026-12-02 01:28:41.916894+00');
INSERT INTO public.schema_definitions VALUES ('engine/rollup_status.sql', '60238d6e019b74341806bae1d958508820aa173a961b13fa8a5616ed4076ec83', '2026-12-02 01:28:41.916894+00');
INSERT INTO public.schema_definitions VALUES ('views/rates.sql', '9e0705e36dcdfb1e9bdd195aaec463cba692eeddf414a8375925f40dd133d880', '2026-12-02 01:28:41.916894+00');
INSERT INTO public.schema_definitions VALUES ('engine/landings.sql', '4a839b0fc6afe765981044d56854fc2ef5720e1a595fda3d0f33cb029cf70b2a', '2026-12-02 01:28:41.916894+00');
INSERT INTO public.schema_definitions VALUES ('engine/prompt_cohorts.sql', 'c643b760d36b979f4d341659fab78736b17b0619ecbfdfd94a2c5973febaa5ba', '2026-12-02 01:28:41.916894+00');
INSERT INTO public.schema_definitions VALUES ('engine/prompt_rollups.sql', 'a8bd7da85726da622e9b1559b3167a8e78d46228a0146aa955e8daa871364f71', '2026-12-02 01:28:41.916894+00');
INSERT INTO public.schema_definitions VALUES ('reports/window.sql', '5f017d5d8d80d99bb07c657d6c231aea8dad948dca6348abbd7af974d2448f28', '2026-12-02 01:28:41.916894+00');
INSERT INTO public.schema_definitions VALUES ('reports/weekly.sql', '63cbdecddad2f8adc99af26cdad1473671f9ac9f90d70d8890b73d7e417919cf', '2026-12-02 01:28:41.916894+00');
INSERT INTO public.schema_definitions VALUES ('reports/silent_loss_rollups.sql', '7211ac3a10c358fe11c06b1e2b56f368a058ccbc1a6bf63c57c6e7a9fe95ca36', '2026-12-02 01:28:41.916894+00');
INSERT INTO public.schema_definitions VALUES ('reports/tail.sql', '172aa2beb40afdce23556f8ff43ccd8ddc97c26641d725958bf7b57008190726', '2026-12-02 01:28:41.916894+00');
INSERT INTO public.schema_definitions VALUES ('reports/invalid_tokens.sql', 'd864e55b22518dc007e29c08f521d0e99a5ee4e20b283dcbeebaea9e743ea7fe', '2026-12-02 01:28:41.916894+00');
INSERT INTO public.schema_definitions VALUES ('reports/provider_check.sql', 'a39ab0e6cbecad33326b6af637167215edbfb0d63ede508d445cd197174f46de', '2026-12-02 01:28:41.916894+00');
INSERT INTO public.schema_definitions VALUES ('reports/links.sql', 'ebb0042b418cea394e7c3ae7bd3dd80d3604320d554d01b51f6342242c9240db', '2026-12-02 01:28:41.916894+00');
INSERT INTO public.schema_definitions VALUES ('alerts/counts.sql', '1477e60f78f9c6c557f08c4625e4971f3ea4a7ddd1df49241bcaa920bd6c6382', '2026-12-02 01:28:41.916894+00');
INSERT INTO public.schema_definitions VALUES ('privacy/erase.sql', '95e58bc53440b84747469b6e38f6428d5b075b8cee8b14ef15e0992aa4d3eb3c', '2026-12-02 01:28:41.916894+00');


--
-- Data for Name: schema_migrations; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.schema_migrations VALUES (1, 'baseline', '60d2d7428ee3633494b5d616c80cc50446a6441b154cb2701b12516f644dab15', '2026-12-02 01:28:40.811706+00');
INSERT INTO public.schema_migrations VALUES (2, 'sender_loop', '7ed77fdb5ea64c6a3c65fb398aa3c839d996d6ada4f3f9763a84dc7943468ac2', '2026-12-02 01:28:41.282397+00');
INSERT INTO public.schema_migrations VALUES (3, 'shard_ready_keys_and_settings', '424f263a54f78b0a10964253d5cd86cee77ffd5363dc67c9c9b7c90da29e4920', '2026-12-02 01:28:41.345419+00');
INSERT INTO public.schema_migrations VALUES (4, 'link_association', '3934efc55ec647e45ba6bf315cfb8fd2c4516f047bfee739fc8cb5a90d740534', '2026-12-02 01:28:41.379595+00');
INSERT INTO public.schema_migrations VALUES (5, 'hardening', '6185e1fc1b27ce6955f89a66fa16607fd49297223c666f57de055af51a2af72b', '2026-12-02 01:28:41.409167+00');
INSERT INTO public.schema_migrations VALUES (6, 'key_rate_limits', 'e5557e17e9bcdb91e18c9605f3648928cdc466af0cb9b399d53dd6d53ccbb3db', '2026-12-02 01:28:41.432076+00');
INSERT INTO public.schema_migrations VALUES (7, 'send_outcomes', 'fc7ac8f73a3517b8b2f1114bee57a58c153772c6c1e8742dad53e719f8253767', '2026-12-02 01:28:41.449+00');
INSERT INTO public.schema_migrations VALUES (8, 'prompt_cohort_members', 'b2a322e05bbfc05579d378ef313a84296caa33b3d8db93874248085d6bb7c8fb', '2026-12-02 01:28:41.516609+00');
INSERT INTO public.schema_migrations VALUES (9, 'failed_event_subjects', '7602f1580f4cf8a79da1fdc7bbf8eecda0b02b30b796bb497c12096e9b46740a', '2026-12-02 01:28:41.565905+00');
INSERT INTO public.schema_migrations VALUES (10, 'unconfirmed_causes', '257e369a09dc9d4cc8b538f3f835f58e81cb8accde25cd7debe9d8be19025691', '2026-12-02 01:28:41.588069+00');
INSERT INTO public.schema_migrations VALUES (12, 'rollup_follow', 'ae7ac49a4af9dd6f5595bc6eac14d5a0e96d3091afba10210f6ba26eb995b803', '2026-12-02 01:28:41.70943+00');


--
-- Data for Name: send_outcomes; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: send_rejections_daily; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: send_rollups_daily; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: sends_default; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: settings_snapshots_default; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: token_invalidations; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: token_registrations; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Name: alert_transitions_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.alert_transitions_id_seq', 1, false);


--
-- Name: failed_events_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.failed_events_id_seq', 1, false);


--
-- Name: link_check_results_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.link_check_results_id_seq', 1, false);


--
-- PostgreSQL database dump complete
--


