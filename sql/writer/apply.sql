-- The event writer's SQL side: pushledger_apply_staged() stores a staged batch with one
-- set-based statement per step, whatever the batch size, and only the steps the batch has rows
-- for (a statement inserting nothing still pays executor start-up over partitioned tables and
-- queues nothing). It queues the rollup work of what it stored itself, one call a kind of row
-- (sql/engine/dirty_days.sql): no statement trigger fires on the tables it writes.

-- Telemetry of the staged batch; p_types: the event types staged.
create or replace function pushledger_store_staged_telemetry(p_types text[])
returns void
language plpgsql as $$
declare
    v_apps text[];
    v_installations uuid[];
begin
    if 'notification_settings' = any(p_types) then
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

    -- A dismissal is a receipt of a displayed notification (contract v1.3), marked as one.
    if p_types && array['notification_received', 'notification_dismissed'] then
        insert into notification_receipts (app_id, event_id, installation_id, platform, app_version, os_version,
                                           sdk_int, notification_id, channel, displayed, dismissed, at, occurred_at,
                                           received_at)
        select app_id, event_id, installation_id, platform, app_version, os_version, sdk_int,
               notification_id, channel, displayed, coalesce(dismissed, false), at, occurred_at, received_at
          from stage_telemetry join stage_fresh using (seq)
         where type in ('notification_received', 'notification_dismissed');
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
            installation_id = case when p.last_registered_at is null
                or excluded.last_registered_at >= p.last_registered_at
                                   then excluded.installation_id else p.installation_id end,
            environment = case when p.last_registered_at is null or excluded.last_registered_at >= p.last_registered_at
                               then excluded.environment else p.environment end;
    end if;

    -- The rollup work of the stored rows, one call a table.
    perform pushledger_queue_telemetry(f.tbl, false, array_agg(f.app_id), array_agg(f.installation_id),
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
               from stage_telemetry t join stage_fresh using (seq)) f
      where f.tbl is not null
      group by f.tbl;

    -- Installations: every valid event (duplicates included: they prove the app is alive). New
    -- ones are queued (xmax is 0 on a row this statement inserted, set on one it updated).
    with stored as (
    insert into installations as i (app_id, installation_id, platform, first_seen_at, last_seen_at,
                                    last_received_at, app_version, os_version, sdk_int, browser, browser_version)
    select distinct on (app_id, installation_id)
           app_id, installation_id, platform, min(occurred_at) over w, max(occurred_at) over w,
           max(received_at) over w, app_version, os_version, sdk_int, browser, browser_version
      from stage_telemetry
    window w as (partition by app_id, installation_id)
     order by app_id, installation_id, occurred_at desc, seq desc
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
end
$$;

-- Sends of the staged batch (p_sends: any staged), and re-resolution of earlier sends when
-- registrations were staged (p_registrations), with response_body and the
-- invalid-token feed.
create or replace function pushledger_store_staged_sends(p_sends boolean, p_registrations boolean)
returns void
language plpgsql as $$
declare
    -- Invalidating results staged. Found by a statement without parameters, whose plan is
    -- cached (one naming p_sends was planned anew each batch).
    v_invalid boolean := false;
    v_queued integer;
begin
    if p_sends then
        v_invalid := exists (select 1 from stage_sends st
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
          from stage_sends s
          join stage_fresh using (seq)
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
           from stage_sends s join stage_fresh using (seq);
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

    perform pushledger_store_staged_invalidations(v_invalid, p_registrations);
end
$$;

-- Stores the staged batch: de-duplicates, inserts, folds tokens and
-- installations, resolves sends. Returns the newly stored event count per unit. The staging
-- tables' statistics are brought up to date first, here rather than in a statement of the
-- writer's own: one round trip less a batch. p_telemetry, p_sends: the rows the writer staged
-- (null: counted). p_partitions: whether to create missing partitions of the batch's times
-- (false: the writer has just seen them all covered, sql/partitions/partitions.sql).
drop function if exists pushledger_apply_staged();
create or replace function pushledger_apply_staged(
    p_telemetry bigint default null, p_sends bigint default null, p_partitions boolean default true)
returns table (unit integer, accepted bigint)
language plpgsql as $$
#variable_conflict use_column
declare
    v_types text[];
    v_sends boolean;
begin
    perform pushledger_analyze_staging(p_telemetry, p_sends);
    select array_agg(distinct type) into v_types from stage_telemetry;
    v_sends := coalesce(p_sends > 0, exists (select 1 from stage_sends));

    if p_partitions then
        perform pushledger_ensure_partitions(min(t), max(t))
           from (select occurred_at as t from stage_telemetry
                 union all select sent_at from stage_sends) times;
    end if;

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
