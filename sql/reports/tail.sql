-- pushledger tail: what arrived for an app since a receive time, accepted and rejected, one row
-- per event. Rows are found by received_at (the receiving server's clock, set before commit);
-- the caller polls with an overlap and de-duplicates by `key`, so a row committed late by a
-- slow ingestor is still seen. Tokens are shortened to their first 8 characters.
create or replace function pushledger_tail(p_app text, p_since timestamptz)
returns table (received_at timestamptz, key text, result text, type text, installation_id uuid, event_id text,
               detail text, error_code text, message text)
language sql stable as $$
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
    select r.received_at, r.event_id::text, 'accepted',
           case when r.dismissed then 'notification_dismissed' else 'notification_received' end, r.installation_id,
           r.event_id::text,
           concat_ws(' ', 'notification=' || r.notification_id::text, 'channel=' || r.channel,
                     'displayed=' || r.displayed::text),
           null, null
      from notification_receipts r where r.app_id = p_app and r.received_at >= p_since
    union all
    select o.received_at, o.event_id::text, 'accepted', 'notification_opened', o.installation_id, o.event_id::text,
           concat_ws(' ', 'notification=' || o.notification_id::text, 'action=' || o.action, 'landed=' || o.landed),
           null, null
      from notification_opens o where o.app_id = p_app and o.received_at >= p_since
    union all
    select s.received_at, s.event_id::text, 'accepted', 'send', s.installation_id, s.event_id::text,
           concat_ws(' ', s.provider, 'status=' || s.status::text, 'reason=' || s.reason, 'channel=' || s.channel),
           null, null
      from sends s where s.app_id = p_app and s.received_at >= p_since
    union all
    -- A rejected event (or request) has no checked fields: type and installation are read from
    -- its raw JSON when they are there.
    select f.received_at, 'failed:' || f.id::text, 'rejected',
           coalesce(substring(f.raw_json from '"type"\s*:\s*"([a-z_]{1,64})"'), case when f.event_index is null
                    then 'request' else 'event' end),
           -- One pattern in two literals (adjacent across a line break, SQL joins them).
           substring(f.raw_json from '"installation_id"\s*:\s*"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-'
                                     '[0-9a-fA-F]{4}-[0-9a-fA-F]{12})"')::uuid,
           f.event_id, f.endpoint, f.error_code, f.message
      from failed_events f where f.app_id = p_app and f.received_at >= p_since
$$;
