-- What arrived since the last rollup refresh: every write path queues, per app and kind, the
-- keys of the rows it wrote or removed (table rollup_inputs) through the functions below, read
-- from its own rows only: the writer from its batch (sql/writer/apply.sql), erasure from what
-- it deletes (sql/privacy/erase.sql), a repair or a fixture written by hand from what it holds
-- (pushledger_queue_stored). Which sends the keys affect is found by the refresh
-- (sql/engine/rollups.sql), by index, so ingest pays one small insert a kind and no join.
-- Channel states are written with their snapshot, in its transaction: the snapshot's key
-- covers them. Retention drops or empties whole partitions older than every rollup it keeps,
-- and an app's move copies its queue with its rows: neither queues anything.
-- Whole days to recompute (after a repair, a definition change or an erasure) go into
-- rollup_dirty_days (pushledger_mark_rollups_dirty).
-- The statement triggers that queued these before the writer did.
drop trigger if exists sends_dirty_insert on sends;
drop trigger if exists sends_dirty_update_old on sends;
drop trigger if exists sends_dirty_update_new on sends;
drop trigger if exists sends_dirty_delete on sends;
drop trigger if exists notification_receipts_dirty on notification_receipts;
drop trigger if exists notification_opens_dirty on notification_opens;
drop trigger if exists notification_receipts_dirty_delete on notification_receipts;
drop trigger if exists notification_opens_dirty_delete on notification_opens;
drop trigger if exists settings_snapshots_dirty on settings_snapshots;
drop trigger if exists token_registrations_dirty on token_registrations;
drop trigger if exists token_registrations_dirty_delete on token_registrations;
drop trigger if exists settings_snapshots_life on settings_snapshots;
drop trigger if exists settings_snapshots_life_delete on settings_snapshots;
drop trigger if exists permission_prompts_life on permission_prompts;
drop trigger if exists permission_prompts_life_delete on permission_prompts;
drop trigger if exists experiment_exposures_life on experiment_exposures;
drop trigger if exists experiment_exposures_life_delete on experiment_exposures;
drop trigger if exists token_registrations_life on token_registrations;
drop trigger if exists token_registrations_life_delete on token_registrations;
drop trigger if exists notification_receipts_life on notification_receipts;
drop trigger if exists notification_receipts_life_delete on notification_receipts;
drop trigger if exists notification_opens_life on notification_opens;
drop trigger if exists notification_opens_life_delete on notification_opens;
drop trigger if exists installations_dirty_insert on installations;
drop function if exists pushledger_queue_sends();
drop function if exists pushledger_queue_confirmations();
drop function if exists pushledger_queue_snapshots();
drop function if exists pushledger_queue_registrations();
drop function if exists pushledger_queue_life();
drop function if exists pushledger_queue_installations();

-- Sends stored, changed or removed (p_removed), as parallel arrays; and the invalidating results
-- among them (p_invalid), whose token's later sends may now (or no longer) go "to a token
-- already known invalid". Each queue function returns how many rows it was given.
-- Reads nothing; writes rollup_inputs.
create or replace function pushledger_queue_sends(
    p_removed boolean, p_apps text[], p_event_ids uuid[], p_sent_at timestamptz[], p_notifications uuid[],
    p_providers text[], p_token_keys uuid[], p_invalid boolean[])
returns integer
language plpgsql as $$
begin
    insert into rollup_inputs (app_id, kind, keys, times, due_at)
    select r.app_id, 'send', array_agg(r.event_id), array_agg(r.sent_at), max(r.sent_at)
      from unnest(p_apps, p_event_ids, p_sent_at) r(app_id, event_id, sent_at) group by r.app_id;
    insert into rollup_inputs (app_id, kind, keys, times, providers, due_at)
    select r.app_id, 'token', array_agg(r.token_key), array_agg(r.sent_at), array_agg(r.provider), '-infinity'
      from unnest(p_apps, p_token_keys, p_sent_at, p_providers, p_invalid)
           r(app_id, token_key, sent_at, provider, invalid)
     where r.invalid group by r.app_id;
    if p_removed then
        -- A removed attempt no longer supersedes the sends whose first sign of life received its
        -- notification (stored and changed ones are found from their keys).
        insert into rollup_inputs (app_id, kind, keys, times, due_at)
        select r.app_id, 'notification', array_agg(r.notification_id), array_agg(r.sent_at), '-infinity'
          from unnest(p_apps, p_notifications, p_sent_at) r(app_id, notification_id, sent_at) group by r.app_id;
    end if;
    return coalesce(cardinality(p_apps), 0);
end
$$;

-- Telemetry rows stored or removed (p_removed), of the tables p_tables (one a row), as parallel
-- arrays: their apps, installations and times, and the key each table is queued by (receipts and
-- opens: their notification; registrations: the token key, with p_providers). Rows of several
-- tables go in one call: one insert a queue, whatever the tables (the writer calls it every
-- batch, and a statement costs more to start than its few rows cost to insert). Per table and
-- app the same entries as one call a table:
--   Every row is a sign of life of its installation, which may change the cause of its earlier
--   unconfirmed sends (metrics.md "Why a send is unconfirmed"); kept until as_of reaches it.
--   A snapshot: the as-of state of the installation's sends from its time on.
--   Snapshots, prompts, exposures: the installation's prompt-cohort member (prompt_rollups.sql).
--   Receipts and opens (removed ones too: their notifications' sends lose a receipt); kept until
--   as_of reaches them.
--   Registrations: a token registered again after an invalidating result is live from then on.
-- Reads nothing; writes rollup_inputs, prompt_rollup_dirty_installations.
create or replace function pushledger_queue_telemetry_rows(
    p_removed boolean, p_tables text[], p_apps text[], p_installations uuid[], p_times timestamptz[],
    p_keys uuid[] default null, p_providers text[] default null)
returns integer
language plpgsql as $$
begin
    insert into rollup_inputs (app_id, kind, keys, times, providers, due_at)
    select r.app_id, q.kind, array_agg(q.key), array_agg(r.at),
           case when q.kind = 'registration' then array_agg(r.provider) end,
           case when q.kind in ('snapshot', 'registration') or (p_removed and q.kind = 'life') then '-infinity'
                else max(r.at) end
      from unnest(p_tables, p_apps, p_installations, p_times, p_keys, p_providers)
           r(tbl, app_id, installation_id, at, key, provider)
     cross join lateral (
           select 'life', r.installation_id
           union all
           select 'snapshot', r.installation_id where r.tbl = 'settings_snapshots' and not p_removed
           union all
           select case r.tbl when 'notification_receipts' then 'receipt' else 'open' end, r.key
            where r.tbl in ('notification_receipts', 'notification_opens')
           union all
           select 'registration', r.key where r.tbl = 'token_registrations') q(kind, key)
     group by r.tbl, r.app_id, q.kind;
    if not p_removed then
        insert into prompt_rollup_dirty_installations (app_id, installation_id, due_at)
        select r.app_id, r.installation_id, max(r.at)
          from unnest(p_tables, p_apps, p_installations, p_times) r(tbl, app_id, installation_id, at)
         where r.tbl in ('settings_snapshots', 'permission_prompts', 'experiment_exposures')
         group by r.tbl, r.app_id, r.installation_id
         order by r.app_id, r.installation_id;
    end if;
    return coalesce(cardinality(p_apps), 0);
end
$$;

-- The same for rows of one table p_table.
-- Reads nothing; writes rollup_inputs, prompt_rollup_dirty_installations.
create or replace function pushledger_queue_telemetry(
    p_table text, p_removed boolean, p_apps text[], p_installations uuid[], p_times timestamptz[],
    p_keys uuid[] default null, p_providers text[] default null)
returns integer
language plpgsql as $$
begin
    return pushledger_queue_telemetry_rows(
               p_removed, array_fill(p_table, array[coalesce(cardinality(p_apps), 0)]), p_apps, p_installations,
               p_times, p_keys, p_providers);
end
$$;

-- New installations, and a changed platform: the platform of sends with no as-of snapshot.
-- PL/pgSQL, not SQL: the writer calls it every batch, and a SQL function's statements are
-- planned again on every call (a quarter of a millisecond, ten times the insert's own cost).
-- Reads nothing; writes rollup_inputs.
create or replace function pushledger_queue_installations(p_apps text[], p_installations uuid[])
returns integer
language plpgsql as $$
begin
    if p_apps is null then
        return 0;  -- most batches bring no new installation
    end if;
    insert into rollup_inputs (app_id, kind, keys, times, due_at)
    select r.app_id, 'installation', array_agg(r.installation_id), '{}', '-infinity'
      from unnest(p_apps, p_installations) r(app_id, installation_id) group by r.app_id;
    return cardinality(p_apps);
end
$$;

-- A changed platform of an installation (a row trigger: rare, and only when it changes).
-- Reads the changed installation row; writes rollup_inputs.
create or replace function pushledger_queue_installation_platform()
returns trigger
language plpgsql as $$
begin
    perform pushledger_queue_installations(array[new.app_id], array[new.installation_id]);
    return null;
end
$$;

create or replace trigger installations_dirty_platform after update on installations
    for each row when (old.platform is distinct from new.platform)
    execute function pushledger_queue_installation_platform();

-- Queues every row app p_app holds in the tables p_tables (of sends, installations and the
-- telemetry tables), or only those whose event_id (an installation's installation_id) is in
-- p_keys, as if each had just been written: for rows written by hand, by a repair or a test's
-- fixture, that a refresh should take incrementally (pushledger_mark_rollups_dirty recomputes
-- whole days instead).
-- Reads the tables named; writes rollup_inputs, prompt_rollup_dirty_installations.
drop function if exists pushledger_queue_stored(text, text[]);
create or replace function pushledger_queue_stored(p_app text, p_tables text[], p_keys uuid[] default null)
returns void
language plpgsql as $$
declare
    v_unknown text;
begin
    select string_agg(t.name, ', ') into v_unknown
      from unnest(p_tables) t(name)
     where t.name not in ('sends', 'installations', 'settings_snapshots', 'permission_prompts', 'experiment_exposures',
                          'notification_receipts', 'notification_opens', 'token_registrations');
    if v_unknown is not null then
        raise exception 'pushledger_queue_stored: % is not a table the rollups read', v_unknown
            using hint = 'sends, installations or a telemetry table; channel states go with their snapshot';
    end if;
    if 'sends' = any(p_tables) then
        perform pushledger_queue_sends(
                    false, array_agg(s.app_id), array_agg(s.event_id), array_agg(s.sent_at),
                    array_agg(s.notification_id), array_agg(s.provider), array_agg(s.token_key),
                    array_agg(pushledger_reason_class(s.provider, s.status, s.reason) = 'token_invalid'))
           from sends s where s.app_id = p_app and (p_keys is null or s.event_id = any(p_keys));
    end if;
    if 'installations' = any(p_tables) then
        perform pushledger_queue_installations(array_agg(i.app_id), array_agg(i.installation_id))
           from installations i
          where i.app_id = p_app and (p_keys is null or i.installation_id = any(p_keys));
        -- Their prompt-cohort members too, as the installations' row trigger marks them when
        -- first_seen_at or the platform changes (sql/engine/prompt_rollups.sql).
        insert into prompt_rollup_dirty_installations (app_id, installation_id, due_at)
        select i.app_id, i.installation_id, '-infinity'
          from installations i
         where i.app_id = p_app and (p_keys is null or i.installation_id = any(p_keys));
    end if;
    -- Telemetry, each row with the key its table is queued by, as the writer passes it
    -- (receipts and opens: their notification; registrations: the token key and its provider).
    perform pushledger_queue_telemetry_rows(false, array_agg(f.tbl), array_agg(f.app_id), array_agg(f.installation_id),
                                            array_agg(f.occurred_at), array_agg(f.key), array_agg(f.provider))
       from (select 'settings_snapshots' as tbl, app_id, installation_id, occurred_at, event_id,
                    null::uuid as key, null::text as provider
               from settings_snapshots
             union all
             select 'permission_prompts', app_id, installation_id, occurred_at, event_id, null, null
               from permission_prompts
             union all
             select 'experiment_exposures', app_id, installation_id, occurred_at, event_id, null, null
               from experiment_exposures
             union all
             select 'notification_receipts', app_id, installation_id, occurred_at, event_id, notification_id, null
               from notification_receipts
             union all
             select 'notification_opens', app_id, installation_id, occurred_at, event_id, notification_id, null
               from notification_opens
             union all
             select 'token_registrations', app_id, installation_id, occurred_at, event_id, token_key, provider
               from token_registrations) f
      where f.tbl = any(p_tables) and f.app_id = p_app and (p_keys is null or f.event_id = any(p_keys))
     having count(*) > 0;
end
$$;

-- Marks days dirty by hand (after a repair or a change of definitions); the next refresh
-- recomputes them whole.
-- Reads nothing; writes rollup_dirty_days.
create or replace function pushledger_mark_rollups_dirty(p_app text, p_from date, p_to date)
returns void
language sql as $$
    insert into rollup_dirty_days (app_id, day)
    select p_app, d::date from generate_series(p_from, p_to, interval '1 day') d
$$;
