-- The event writer's SQL side. Store.EventWriter COPYs a whole batch (the units of many
-- requests) into session-local staging tables, then calls pushledger_apply_staged() once:
-- every step below is one set-based statement, whatever the batch size.

-- metrics.md rejection reason classes; null for a 2xx status. token_invalid first: an FCM
-- UNREGISTERED counts whatever its status, an APNs 410 whatever its reason.
create function pushledger_reason_class(p_status integer, p_reason text)
returns text
language sql immutable parallel safe as $$
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

-- UTC day of a time: the rollups' day.
create function pushledger_day(p_time timestamptz)
returns date
language sql immutable parallel safe as $$ select (p_time at time zone 'UTC')::date $$;

-- Creates this session's staging tables (once per connection; rows vanish at commit).
-- seq orders every staged event of the batch (unit order, then index): the first copy of a
-- duplicated (app_id, event_id) by seq is the one stored.
create function pushledger_create_staging()
returns void
language plpgsql as $$
begin
    if to_regclass('pg_temp.stage_telemetry') is not null then
        return;
    end if;
    create temp table stage_telemetry (
        seq integer not null, unit integer not null,
        app_id text not null, event_id uuid not null, installation_id uuid not null,
        platform text not null, app_version text, os_version text, sdk_int integer,
        type text not null, at timestamptz not null, occurred_at timestamptz not null,
        received_at timestamptz not null,
        authorization_status text, alert_setting text, sound_setting text, badge_setting text,
        lock_screen_setting text, notification_center_setting text, time_sensitive_setting text,
        scheduled_delivery_setting text, alert_style text, notifications_enabled boolean,
        post_notifications text, channel_count integer,
        placement text, prompt text, result text,
        experiment text, variant text,
        provider text, token text, environment text,
        notification_id uuid, channel text, displayed boolean,
        action text, link text, landed text
    ) on commit delete rows;
    create temp table stage_channels (
        seq integer not null, channel_id text not null, importance integer not null,
        group_id text, group_blocked boolean
    ) on commit delete rows;
    create temp table stage_sends (
        seq integer not null, unit integer not null,
        app_id text not null, event_id uuid not null, notification_id uuid not null,
        provider text not null, token text not null, installation_id uuid,
        channel text not null, campaign text, sent_at timestamptz not null, status integer not null,
        reason text, apns_id text, unregistered_at timestamptz, priority integer, push_type text,
        environment text, latency_ms integer, received_at timestamptz not null
    ) on commit delete rows;
    create temp table stage_fresh (seq integer primary key, unit integer not null) on commit delete rows;
end
$$;

-- Stores the staged batch: de-duplicates, inserts, folds tokens and installations, resolves
-- sends (triggers of 0005 mark the rollup days it changes dirty). Returns the newly stored
-- event count per unit (units with none are absent). Must run in the transaction that filled
-- the staging tables.
create function pushledger_apply_staged()
returns table (unit integer, accepted bigint)
language plpgsql as $$
#variable_conflict use_column
begin
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

    perform pushledger_store_staged_telemetry();
    perform pushledger_store_staged_sends();

    return query select f.unit, count(*) from stage_fresh f group by f.unit;
end
$$;

create function pushledger_store_staged_telemetry()
returns void
language plpgsql as $$
begin
    insert into settings_snapshots (
        app_id, event_id, installation_id, platform, app_version, os_version, sdk_int,
        authorization_status, alert_setting, sound_setting, badge_setting, lock_screen_setting,
        notification_center_setting, time_sensitive_setting, scheduled_delivery_setting, alert_style,
        notifications_enabled, post_notifications, channel_count, at, occurred_at, received_at)
    select app_id, event_id, installation_id, platform, app_version, os_version, sdk_int,
           authorization_status, alert_setting, sound_setting, badge_setting, lock_screen_setting,
           notification_center_setting, time_sensitive_setting, scheduled_delivery_setting, alert_style,
           notifications_enabled, post_notifications, channel_count, at, occurred_at, received_at
      from stage_telemetry join stage_fresh using (seq)
     where type = 'notification_settings';

    insert into channel_states (app_id, snapshot_event_id, installation_id, channel_id, importance,
                                group_id, group_blocked, occurred_at, received_at)
    select t.app_id, t.event_id, t.installation_id, c.channel_id, c.importance, c.group_id,
           c.group_blocked, t.occurred_at, t.received_at
      from stage_channels c join stage_fresh using (seq) join stage_telemetry t using (seq);

    insert into permission_prompts (app_id, event_id, installation_id, platform, app_version, os_version,
                                    sdk_int, placement, prompt, result, at, occurred_at, received_at)
    select app_id, event_id, installation_id, platform, app_version, os_version, sdk_int,
           placement, prompt, result, at, occurred_at, received_at
      from stage_telemetry join stage_fresh using (seq)
     where type = 'permission_prompt';

    insert into experiment_exposures (app_id, event_id, installation_id, platform, app_version, os_version,
                                      sdk_int, experiment, variant, at, occurred_at, received_at)
    select app_id, event_id, installation_id, platform, app_version, os_version, sdk_int,
           experiment, variant, at, occurred_at, received_at
      from stage_telemetry join stage_fresh using (seq)
     where type = 'experiment_exposure';

    insert into notification_receipts (app_id, event_id, installation_id, platform, app_version, os_version,
                                       sdk_int, notification_id, channel, displayed, at, occurred_at, received_at)
    select app_id, event_id, installation_id, platform, app_version, os_version, sdk_int,
           notification_id, channel, displayed, at, occurred_at, received_at
      from stage_telemetry join stage_fresh using (seq)
     where type = 'notification_received';

    insert into notification_opens (app_id, event_id, installation_id, platform, app_version, os_version,
                                    sdk_int, notification_id, action, link, landed, at, occurred_at, received_at)
    select app_id, event_id, installation_id, platform, app_version, os_version, sdk_int,
           notification_id, action, link, landed, at, occurred_at, received_at
      from stage_telemetry join stage_fresh using (seq)
     where type = 'notification_opened';

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

create function pushledger_store_staged_sends()
returns void
language plpgsql as $$
begin
    -- Sends without installation_id take the installation of the token's latest registration
    -- at or before sent_at (registrations of this batch were stored just before).
    insert into sends (app_id, event_id, notification_id, provider, token, installation_id, resolved_by,
                       channel, campaign, sent_at, status, reason, apns_id, unregistered_at, priority,
                       push_type, environment, latency_ms, received_at)
    select s.app_id, s.event_id, s.notification_id, s.provider, s.token,
           coalesce(s.installation_id, r.installation_id),
           case when s.installation_id is not null then 'explicit'
                when r.installation_id is not null then 'token' else 'unresolved' end,
           s.channel, s.campaign, s.sent_at, s.status, s.reason, s.apns_id, s.unregistered_at, s.priority,
           s.push_type, s.environment, s.latency_ms, s.received_at
      from stage_sends s
      join stage_fresh using (seq)
      left join lateral (
            select r.installation_id from token_registrations r
             where s.installation_id is null and r.app_id = s.app_id and r.provider = s.provider
               and r.token_key = md5(s.token)::uuid and r.occurred_at <= s.sent_at
             order by r.occurred_at desc, r.received_at desc, r.event_id desc
             limit 1) r on true;

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
end
$$;
