-- The event writer's SQL side: pushledger_apply_batch() stores a batch the writer sends in one
-- call, each kind of row as one array (sql/migrations/0021_batch_rows.sql), with one set-based
-- statement per step, whatever the batch size, and only the steps the batch has rows for (a
-- statement inserting nothing still pays executor start-up over partitioned tables and queues
-- nothing). It queues the rollup work of what it stored itself, one call a kind of row
-- (sql/engine/dirty_days.sql): no statement trigger fires on the tables it writes.

-- Telemetry of a batch: p_fresh, the events no earlier copy stored; p_channels, the channels of
-- the batch's snapshots.
drop function if exists pushledger_store_batch_telemetry(
    pushledger_batch_telemetry[], pushledger_batch_telemetry[], pushledger_batch_channel[]);
create or replace function pushledger_store_batch_telemetry(
    p_fresh pushledger_batch_telemetry[], p_channels pushledger_batch_channel[])
returns void
language plpgsql as $$
declare
    v_types text[];
begin
    select array_agg(distinct f.type) into v_types from unnest(p_fresh) f;
    v_types := coalesce(v_types, '{}');
    if 'notification_settings' = any(v_types) then
        insert into settings_snapshots (
            app_id, event_id, installation_id, platform, app_version, os_version, sdk_int,
            authorization_status, alert_setting, sound_setting, badge_setting, lock_screen_setting,
            notification_center_setting, time_sensitive_setting, scheduled_delivery_setting, alert_style,
            notifications_enabled, post_notifications, channel_count, standby_bucket, background_restricted,
            ignoring_battery_optimizations, force_stopped_before_start, low_power_mode, browser, browser_version,
            push_permission_state, display_mode, subscription, at, occurred_at, received_at)
        select app_id, event_id, installation_id, platform, app_version, os_version, sdk_int,
               authorization_status, alert_setting, sound_setting, badge_setting, lock_screen_setting,
               notification_center_setting, time_sensitive_setting, scheduled_delivery_setting, alert_style,
               notifications_enabled, post_notifications, channel_count, standby_bucket, background_restricted,
               ignoring_battery_optimizations, force_stopped_before_start, low_power_mode, browser, browser_version,
               push_permission_state, display_mode, subscription, at, occurred_at, received_at
          from unnest(p_fresh)
         where type = 'notification_settings';

        insert into channel_states (app_id, snapshot_event_id, installation_id, channel_id, importance,
                                    group_id, group_blocked, occurred_at, received_at)
        select t.app_id, t.event_id, t.installation_id, c.channel_id, c.importance, c.group_id,
               c.group_blocked, t.occurred_at, t.received_at
          from unnest(p_channels) c join unnest(p_fresh) t using (seq);
    end if;

    if 'permission_prompt' = any(v_types) then
        insert into permission_prompts (app_id, event_id, installation_id, platform, app_version, os_version,
                                        sdk_int, placement, prompt, result, at, occurred_at, received_at)
        select app_id, event_id, installation_id, platform, app_version, os_version, sdk_int,
               placement, prompt, result, at, occurred_at, received_at
          from unnest(p_fresh)
         where type = 'permission_prompt';
    end if;

    if 'experiment_exposure' = any(v_types) then
        insert into experiment_exposures (app_id, event_id, installation_id, platform, app_version, os_version,
                                          sdk_int, experiment, variant, at, occurred_at, received_at)
        select app_id, event_id, installation_id, platform, app_version, os_version, sdk_int,
               experiment, variant, at, occurred_at, received_at
          from unnest(p_fresh)
         where type = 'experiment_exposure';
    end if;

    -- A dismissal is a receipt of a displayed notification (contract v1.3), marked as one.
    if v_types && array['notification_received', 'notification_dismissed'] then
        insert into notification_receipts (app_id, event_id, installation_id, platform, app_version, os_version,
                                           sdk_int, notification_id, channel, displayed, dismissed, at, occurred_at,
                                           received_at)
        select app_id, event_id, installation_id, platform, app_version, os_version, sdk_int,
               notification_id, channel, displayed, coalesce(dismissed, false), at, occurred_at, received_at
          from unnest(p_fresh)
         where type in ('notification_received', 'notification_dismissed');
    end if;

    if 'notification_opened' = any(v_types) then
        insert into notification_opens (app_id, event_id, installation_id, platform, app_version, os_version,
                                        sdk_int, notification_id, action, link, landed, at, occurred_at, received_at)
        select app_id, event_id, installation_id, platform, app_version, os_version, sdk_int,
               notification_id, action, link, landed, at, occurred_at, received_at
          from unnest(p_fresh)
         where type = 'notification_opened';
    end if;

    if 'push_token' = any(v_types) then
        insert into token_registrations (app_id, event_id, installation_id, platform, app_version, os_version,
                                         sdk_int, provider, token, environment, at, occurred_at, received_at)
        select app_id, event_id, installation_id, platform, app_version, os_version, sdk_int,
               provider, token, environment, at, occurred_at, received_at
          from unnest(p_fresh)
         where type = 'push_token';

        -- Token state: the latest registration names the installation and environment.
        insert into push_tokens as p (app_id, provider, token_key, token, environment, installation_id,
                                      first_registered_at, last_registered_at)
        select distinct on (app_id, provider, md5(token)::uuid)
               app_id, provider, md5(token)::uuid, token, environment, installation_id,
               min(occurred_at) over w, max(occurred_at) over w
          from unnest(p_fresh)
         where type = 'push_token'
        window w as (partition by app_id, provider, md5(token)::uuid)
         order by app_id, provider, md5(token)::uuid, occurred_at desc, received_at desc, event_id desc
        on conflict (app_id, provider, token_key) do update set
            first_registered_at = least(p.first_registered_at, excluded.first_registered_at),
            last_registered_at = greatest(p.last_registered_at, excluded.last_registered_at),
            installation_id = case when p.last_registered_at is null
                or excluded.last_registered_at >= p.last_registered_at
                                   then excluded.installation_id else p.installation_id end,
            environment = case when p.last_registered_at is null or excluded.last_registered_at >= p.last_registered_at
                               then excluded.environment else p.environment end;
    end if;

    -- The rollup work of the stored rows, every table in one call.
    perform pushledger_queue_telemetry_rows(false, array_agg(f.tbl), array_agg(f.app_id), array_agg(f.installation_id),
                                            array_agg(f.occurred_at), array_agg(f.key), array_agg(f.provider))
       from (select case t.type when 'notification_settings' then 'settings_snapshots'
                                when 'permission_prompt' then 'permission_prompts'
                                when 'experiment_exposure' then 'experiment_exposures'
                                when 'notification_received' then 'notification_receipts'
                                when 'notification_dismissed' then 'notification_receipts'
                                when 'notification_opened' then 'notification_opens'
                                when 'push_token' then 'token_registrations' end as tbl,
                    t.app_id, t.installation_id, t.occurred_at, t.provider,
                    case when t.type = 'push_token' then md5(t.token)::uuid else t.notification_id end as key
               from unnest(p_fresh) t) f
      where f.tbl is not null
     having count(*) > 0;
end
$$;

-- Sends of a batch (p_sends: those no earlier copy stored), with response_body, and the
-- invalid-token feed of them and of the batch's fresh registrations (p_registrations: its
-- fresh push_token events).
create or replace function pushledger_store_batch_sends(
    p_sends pushledger_batch_send[], p_registrations pushledger_batch_telemetry[])
returns void
language plpgsql as $$
declare
    v_invalid boolean := false;
begin
    if cardinality(p_sends) > 0 then
        v_invalid := exists (select 1 from unnest(p_sends) st
                              where pushledger_reason_class(st.provider, st.status, st.reason) = 'token_invalid');
        -- Sends without installation_id take the installation of the token's latest registration
        -- at or before sent_at (registrations of this batch were stored just before).
        insert into sends (app_id, event_id, notification_id, provider, token, installation_id, resolved_by,
                           channel, campaign, sent_at, status, reason, apns_id, unregistered_at, priority,
                           push_type, environment, latency_ms, received_at, response_body, collapse_id, expires_at,
                           mutable_content, message_kind, urgency, push_service)
        select s.app_id, s.event_id, s.notification_id, s.provider, s.token,
               coalesce(s.installation_id, r.installation_id),
               case when s.installation_id is not null then 'explicit'
                    when r.installation_id is not null then 'token' else 'unresolved' end,
               s.channel, s.campaign, s.sent_at, s.status, s.reason, s.apns_id, s.unregistered_at, s.priority,
               s.push_type, s.environment, s.latency_ms, s.received_at, s.response_body, s.collapse_id, s.expires_at,
               s.mutable_content, s.message_kind, s.urgency, s.push_service
          from unnest(p_sends) s
          left join lateral (
                select r.installation_id from token_registrations r
                 where s.installation_id is null and r.app_id = s.app_id and r.provider = s.provider
                   and r.token_key = md5(s.token)::uuid and r.occurred_at <= s.sent_at
                 order by r.occurred_at desc, r.received_at desc, r.event_id desc
                 limit 1) r on true;
        perform pushledger_queue_sends(
                    false, array_agg(s.app_id), array_agg(s.event_id), array_agg(s.sent_at),
                    array_agg(s.notification_id), array_agg(s.provider), array_agg(md5(s.token)::uuid),
                    array_agg(pushledger_reason_class(s.provider, s.status, s.reason) = 'token_invalid'))
           from unnest(p_sends) s;
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
                  from unnest(p_sends) st
                 where pushledger_reason_class(st.provider, st.status, st.reason) = 'token_invalid') fresh
            on s.app_id = fresh.app_id and s.sent_at = fresh.sent_at and s.event_id = fresh.event_id
         order by s.app_id, s.provider, s.token_key, s.sent_at desc, s.event_id desc
        on conflict (app_id, provider, token_key) do update set
            invalidated_at = greatest(p.invalidated_at, excluded.invalidated_at),
            invalidated_status = case when p.invalidated_at is null or excluded.invalidated_at >= p.invalidated_at
                                      then excluded.invalidated_status else p.invalidated_status end,
            invalidated_reason = case when p.invalidated_at is null or excluded.invalidated_at >= p.invalidated_at
                                      then excluded.invalidated_reason else p.invalidated_reason end,
            unregistered_at = case when p.invalidated_at is null or excluded.invalidated_at >= p.invalidated_at
                                   then coalesce(excluded.unregistered_at, p.unregistered_at)
                                       else p.unregistered_at end,
            installation_id = coalesce(p.installation_id, excluded.installation_id);
    end if;

    perform pushledger_store_batch_invalidations(p_sends, p_registrations, v_invalid);
end
$$;

-- The state a batch's telemetry derives, apart from its events: the installations it proves
-- alive (p_all: every valid event, in order) and the earlier sends its fresh registrations
-- (p_registrations) re-resolve. Applied in the batch's transaction, or later for many batches
-- at once (pushledger_apply_derived_inputs): both are the same whatever the order of batches,
-- but for ties of occurred_at, which p_all's order breaks.
create or replace function pushledger_apply_derived(
    p_all pushledger_batch_telemetry[], p_registrations pushledger_batch_telemetry[])
returns void
language plpgsql as $$
declare
    v_apps text[];
    v_installations uuid[];
    v_queued integer;
begin
    -- Installations: every valid event (duplicates included: they prove the app is alive), the
    -- latest by occurred_at, then by place in p_all, naming the versions. New ones are queued
    -- (xmax is 0 on a row this statement inserted, set on one it updated).
    with stored as (
    insert into installations as i (app_id, installation_id, platform, first_seen_at, last_seen_at,
                                    last_received_at, app_version, os_version, sdk_int, browser, browser_version)
    select distinct on (a.app_id, a.installation_id)
           a.app_id, a.installation_id, a.platform, min(a.occurred_at) over w, max(a.occurred_at) over w,
           max(a.received_at) over w, a.app_version, a.os_version, a.sdk_int, a.browser, a.browser_version
      from unnest(p_all) with ordinality a
    window w as (partition by a.app_id, a.installation_id)
     order by a.app_id, a.installation_id, a.occurred_at desc, a.ordinality desc
    on conflict (app_id, installation_id) do update set
        first_seen_at = least(i.first_seen_at, excluded.first_seen_at),
        last_seen_at = greatest(i.last_seen_at, excluded.last_seen_at),
        last_received_at = greatest(i.last_received_at, excluded.last_received_at),
        platform = case when excluded.last_seen_at >= i.last_seen_at then excluded.platform else i.platform end,
        app_version = case when excluded.last_seen_at >= i.last_seen_at then excluded.app_version
            else i.app_version end,
        os_version = case when excluded.last_seen_at >= i.last_seen_at then excluded.os_version else i.os_version end,
        sdk_int = case when excluded.last_seen_at >= i.last_seen_at then excluded.sdk_int else i.sdk_int end,
        browser = case when excluded.last_seen_at >= i.last_seen_at then excluded.browser else i.browser end,
        browser_version = case when excluded.last_seen_at >= i.last_seen_at then excluded.browser_version
            else i.browser_version end
    returning i.app_id, i.installation_id, i.xmax = 0 as inserted
    )
    select array_agg(app_id), array_agg(installation_id) into v_apps, v_installations from stored where inserted;
    perform pushledger_queue_installations(v_apps, v_installations);

    if cardinality(p_registrations) > 0 then
        -- Sends stored earlier without a registration (or before a later one) are re-resolved
        -- when a registration at or before their sent_at arrives late.
        with late as (
            -- A token's earliest registration reaches every send any of them can.
            select t.app_id, t.provider, md5(t.token)::uuid as token_key, min(t.occurred_at) as occurred_at
              from unnest(p_registrations) t
             group by 1, 2, 3
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
        , moved as (
            update sends s set installation_id = c.installation_id, resolved_by = 'token'
              from candidates c
             where s.app_id = c.app_id and s.sent_at = c.sent_at and s.event_id = c.event_id
            returning s.app_id, s.event_id, s.sent_at, s.notification_id, s.provider, s.token_key,
                      pushledger_reason_class(s.provider, s.status, s.reason) = 'token_invalid' as invalid
        )
        select pushledger_queue_sends(false, array_agg(m.app_id), array_agg(m.event_id), array_agg(m.sent_at),
                                      array_agg(m.notification_id), array_agg(m.provider), array_agg(m.token_key),
                                      array_agg(m.invalid))
          into v_queued from moved m;
    end if;
end
$$;

-- Applies every batch's derived state queued in derived_inputs (sql/migrations/0022_derived_inputs.sql)
-- that this transaction sees, in queue order, and deletes it; returns how many batches. Rows
-- queued by transactions not yet committed stay for the next call. p_wait false (the writers):
-- return 0 at once when another call holds the queue, as a rollup pass does until it commits, so
-- a writer never waits a pass out; what waits stays for the next call.
drop function if exists pushledger_apply_derived_inputs();
create or replace function pushledger_apply_derived_inputs(p_wait boolean default true)
returns integer
language plpgsql as $$
declare
    v_all pushledger_batch_telemetry[];
    v_registrations pushledger_batch_telemetry[];
    v_batches integer;
begin
    if not exists (select 1 from derived_inputs) then
        return 0;
    end if;
    -- One call at a time: the queue's order holds across calls, and two calls never lock the
    -- same installations and sends in turn.
    if p_wait then
        perform pg_advisory_xact_lock(hashtext('pushledger_apply_derived_inputs'));
    elsif not pg_try_advisory_xact_lock(hashtext('pushledger_apply_derived_inputs')) then
        return 0;
    end if;
    with taken as (
        delete from derived_inputs returning id, telemetry, registrations
    )
    select (select array_agg(u order by t.id, u.seq) from taken t cross join lateral unnest(t.telemetry) u),
           (select array_agg(u order by t.id, u.seq) from taken t cross join lateral unnest(t.registrations) u),
           (select count(*) from taken)
      into v_all, v_registrations, v_batches;
    if v_batches > 0 then
        perform pushledger_apply_derived(v_all, coalesce(v_registrations, '{}'));
    end if;
    return v_batches;
end
$$;

-- The keys a batch stores in event_ids: its telemetry events' first copies and its sends.
-- SQL, so a statement reading it inlines it as the two unnests.
create or replace function pushledger_batch_keys(
    p_telemetry pushledger_batch_telemetry[], p_sends pushledger_batch_send[])
returns table (app_id text, event_id uuid, received_at timestamptz)
language sql immutable as $$
    select t.app_id, t.event_id, t.received_at from unnest(p_telemetry) t where t.batch_first
    union all
    select s.app_id, s.event_id, s.received_at from unnest(p_sends) s
$$;

-- Stores a batch in one call: its failed events, then its events de-duplicated by (app_id,
-- event_id) against every earlier batch (within the batch the writer sends each key's first
-- copy as batch_first), then the telemetry, the installations and tokens they fold into, the
-- sends and their resolution, and the state the telemetry derives (pushledger_apply_derived).
-- Returns the newly stored event count per unit. p_partitions: whether to create missing
-- partitions of the batch's times (false: the writer has just seen them all covered,
-- sql/partitions/partitions.sql). p_defer: queue the derived state in derived_inputs instead
-- of applying it (a busy writer: the answer need not wait for it).
drop function if exists pushledger_apply_batch(
    pushledger_batch_telemetry[], pushledger_batch_channel[], pushledger_batch_send[], pushledger_batch_failure[],
    boolean);
create or replace function pushledger_apply_batch(
    p_telemetry pushledger_batch_telemetry[], p_channels pushledger_batch_channel[],
    p_sends pushledger_batch_send[], p_failures pushledger_batch_failure[], p_partitions boolean default true,
    p_defer boolean default false)
returns table (unit integer, accepted bigint)
language plpgsql
-- Every statement of the call (the steps' too) reads the batch from parameters, so Postgres
-- would plan the ones over partitioned tables anew each batch: a plan for the values at hand
-- prunes partitions as it is made and looks cheaper than the cached one, which prunes them as
-- it starts. Cached plans it is (about 2 ms of planning a phone-sized batch otherwise).
set plan_cache_mode = force_generic_plan
as $$
#variable_conflict use_column
declare
    v_telemetry pushledger_batch_telemetry[];
    v_sends pushledger_batch_send[];
    v_registrations pushledger_batch_telemetry[];
    v_new bigint;
begin
    if cardinality(p_failures) > 0 then
        insert into failed_events (app_id, endpoint, error_code, message, event_index, event_id, raw_json,
                                   received_at, raw_bytes, raw_sha256, installation_id, token)
        select app_id, endpoint, error_code, message, event_index, event_id, raw_json, received_at, raw_bytes,
               raw_sha256, installation_id, token
          from unnest(p_failures);
    end if;
    if coalesce(cardinality(p_telemetry), 0) + coalesce(cardinality(p_sends), 0) = 0 then
        return;
    end if;

    if p_partitions then
        perform pushledger_ensure_partitions(min(t), max(t))
           from (select occurred_at as t from unnest(p_telemetry)
                 union all select sent_at from unnest(p_sends)) times;
    end if;

    -- Keys go in sorted order so concurrent writers cannot deadlock here. Most batches hold only
    -- keys never stored: a plain insert checks each key's uniqueness in the index descent that
    -- inserts it, where ON CONFLICT first looks every key up (about 2.4 µs a key). A key stored
    -- before, or twice in the batch, undoes it (one subtransaction a batch) and the batch takes
    -- the ON CONFLICT path.
    begin
        insert into event_ids (app_id, event_id, received_at)
        select k.app_id, k.event_id, k.received_at from pushledger_batch_keys(p_telemetry, p_sends) k
         order by k.app_id, k.event_id;
        get diagnostics v_new = row_count;
        v_telemetry := p_telemetry;
        v_sends := p_sends;
        -- Later copies of an event within the batch are not stored.
        if v_new < coalesce(cardinality(p_telemetry), 0) + coalesce(cardinality(p_sends), 0) then
            select array_agg(t order by t.seq) into v_telemetry from unnest(p_telemetry) t where t.batch_first;
        end if;
    exception when unique_violation then
        with stored as (
            insert into event_ids (app_id, event_id, received_at)
            select k.app_id, k.event_id, k.received_at from pushledger_batch_keys(p_telemetry, p_sends) k
             order by k.app_id, k.event_id
            on conflict do nothing
            returning app_id, event_id
        )
        select (select array_agg(t order by t.seq) from unnest(p_telemetry) t
                  join stored s on s.app_id = t.app_id and s.event_id = t.event_id
                 where t.batch_first),
               (select array_agg(x order by x.seq) from unnest(p_sends) x
                  join stored s on s.app_id = x.app_id and s.event_id = x.event_id)
          into v_telemetry, v_sends;
    end;

    if cardinality(p_telemetry) > 0 then
        perform pushledger_store_batch_telemetry(v_telemetry, p_channels);
        select array_agg(t order by t.seq) into v_registrations from unnest(v_telemetry) t where t.type = 'push_token';
    end if;
    perform pushledger_store_batch_sends(v_sends, v_registrations);
    if cardinality(p_telemetry) > 0 and p_defer then
        insert into derived_inputs (app_id, telemetry, registrations)
        select t.app_id, array_agg(t order by t.seq),
               (select array_agg(r order by r.seq) from unnest(v_registrations) r where r.app_id = t.app_id)
          from unnest(p_telemetry) t
         group by t.app_id;
    elsif cardinality(p_telemetry) > 0 then
        perform pushledger_apply_derived(p_telemetry, v_registrations);
    end if;

    return query select u.unit, count(*)
                   from (select unit from unnest(v_telemetry) union all select unit from unnest(v_sends)) u
                  group by u.unit;
end
$$;
