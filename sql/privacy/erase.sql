-- Erasure of one installation, or one push token, on request: every stored trace goes in one
-- transaction, and the erasure is recorded by a SHA-256 of the id alone.
--
-- Safe while ingest runs: after the failed events, the erasure takes event_ids in SHARE ROW
-- EXCLUSIVE mode. Every writer transaction inserts into event_ids (de-duplication) before
-- storing anything, so the lock waits for the batches in flight to commit and holds new ones
-- back until the erasure commits (writers queue for that long; the HTTP queue absorbs it). The
-- erasure therefore removes everything committed before it, and nothing half-written can slip
-- past it.
--
-- Failed events are removed by their installation_id and token columns, within the app, before
-- the lock (so a slow raw-text search never holds the writers), and again by column under it for
-- the batches that committed in between. p_search_raw also removes failed events of the app whose
-- raw text contains the id or a token of at least 16 characters, in any case: the fallback for
-- rows stored before those columns existed (migration 0009) and for tokens a quarantined
-- request named after its first.
-- event_ids rows stay: an event id is random and names no one once its event is gone, and a
-- retried copy of an erased event stays a duplicate instead of being stored again.
--
-- Rollups: the sends, receipts, opens and other telemetry deleted are queued for the next
-- refresh as they are deleted (sql/engine/dirty_days.sql); the days of erased receipts and opens are marked here
-- to be recomputed whole (instrumentation counts them); the installation's prompt-cohort
-- members are recomputed in place (it has none left: its rows leave and their days are
-- re-grouped), before its marks are removed. The caller then
-- refreshes the send rollups (`pushledger erase` does).

-- The tokens of the subject: registered by the installation, named in its rejected events (a
-- push_token too old to register: for either provider, as the failed event does not say), or
-- the token itself.
create or replace function pushledger_erase_tokens(p_app text, p_installation uuid, p_token text)
returns table (provider text, token text, token_key uuid)
language sql stable as $$
    select p.provider, f.token, md5(f.token)::uuid from failed_events f 
     cross join (values ('apns'), ('fcm')) p (provider)
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

-- Failed events of the app that name the installation, one of erase_tokens or the token.
create or replace function pushledger_erase_failed_events(p_app text, p_installation uuid, p_token text,
                                                          p_search_raw boolean)
returns bigint
language plpgsql as $$
declare
    v_rows bigint;
begin
    delete from failed_events f
     where f.app_id = p_app
       and (f.installation_id = p_installation
            or f.token is not null
               and (md5(f.token)::uuid = md5(p_token)::uuid and f.token = p_token
                    or exists (select 1 from erase_tokens t where md5(f.token)::uuid = t.token_key
                               and f.token = t.token))
            or p_search_raw
               and (strpos(lower(f.raw_json), lower(p_installation::text)) > 0
                    or strpos(lower(f.raw_json), lower(p_token)) > 0
                    or exists (select 1 from erase_tokens t
                                where length(t.token) >= pushledger_erase_min_search()
                                  and strpos(lower(f.raw_json), lower(t.token)) > 0)));
    get diagnostics v_rows = row_count;
    return v_rows;
end
$$;

-- The shortest text the raw-text fallback searches for: a shorter one (the token `{`) would
-- match unrelated bodies.
create or replace function pushledger_erase_min_search() returns integer
language sql immutable as $$ select 16 $$;

drop function if exists pushledger_erase(text, uuid, text);
create or replace function pushledger_erase(p_app text, p_installation uuid, p_token text,
                                            p_search_raw boolean default false)
returns table (erased_from text, erased_rows bigint)
language plpgsql as $$
declare
    v_rows bigint;
    v_failed bigint;
    v_table text;
begin
    if (p_installation is null) = (p_token is null) then
        raise exception 'pushledger_erase: give an installation or a token';
    end if;
    if p_search_raw and length(p_token) < pushledger_erase_min_search() then
        raise exception 'pushledger_erase: a token searched for in raw text needs at least % characters',
            pushledger_erase_min_search();
    end if;
    -- Derived state still queued would bring an erased installation back once applied.
    perform pushledger_apply_derived_inputs();
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
            or exists (select 1 from erase_tokens t where t.provider = s.provider and t.token_key = s.token_key
                       and t.token = s.token
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

    -- Each delete queues the rollup work of what it removed (sql/engine/dirty_days.sql).
    -- Receipts and opens: the installation's, and those of its sends' notifications.
    foreach v_table in array array['notification_receipts', 'notification_opens'] loop
        execute format('with gone as (
                            delete from %I c where c.app_id = $1
                               and (c.installation_id = $2
                                    or c.notification_id in (select notification_id from erase_sends))
                            returning c.app_id, c.installation_id, c.occurred_at, c.notification_id)
                        select pushledger_queue_telemetry(%L, true, array_agg(app_id), array_agg(installation_id),
                                                          array_agg(occurred_at), array_agg(notification_id))
                          from gone', v_table, v_table)
          into v_rows using p_app, p_installation;
        erased_from := v_table; erased_rows := v_rows; return next;
    end loop;
    with gone as (
        delete from sends s where s.app_id = p_app
           and (s.installation_id = p_installation
                or exists (select 1 from erase_tokens t where t.provider = s.provider and t.token_key = s.token_key
                           and t.token = s.token
                            and (s.installation_id is null or p_token is not null)))
        returning s.app_id, s.event_id, s.sent_at, s.notification_id, s.provider, s.token_key,
                  pushledger_reason_class(s.provider, s.status, s.reason) = 'token_invalid' as invalid
    )
    select pushledger_queue_sends(true, array_agg(app_id), array_agg(event_id), array_agg(sent_at),
                                  array_agg(notification_id), array_agg(provider), array_agg(token_key),
                                  array_agg(invalid))
      into v_rows from gone;
    erased_from := 'sends'; erased_rows := v_rows; return next;
    with gone as (
        delete from token_registrations r where r.app_id = p_app
           and (r.installation_id = p_installation or r.token_key = md5(p_token)::uuid and r.token = p_token)
        returning r.app_id, r.installation_id, r.occurred_at, r.token_key, r.provider
    )
    select pushledger_queue_telemetry('token_registrations', true, array_agg(app_id), array_agg(installation_id),
                                      array_agg(occurred_at), array_agg(token_key), array_agg(provider))
      into v_rows from gone;
    erased_from := 'token_registrations'; erased_rows := v_rows; return next;
    delete from push_tokens k where k.app_id = p_app
       and (k.installation_id = p_installation or k.token_key = md5(p_token)::uuid and k.token = p_token);
    get diagnostics v_rows = row_count; erased_from := 'push_tokens'; erased_rows := v_rows; return next;
    -- The invalid-token feed names tokens too.
    delete from token_invalidations v where v.app_id = p_app
       and exists (select 1 from erase_tokens t where t.provider = v.provider and t.token_key = v.token_key
                   and t.token = v.token);
    get diagnostics v_rows = row_count; erased_from := 'token_invalidations'; erased_rows := v_rows; return next;
    delete from channel_states where app_id = p_app and installation_id = p_installation;
    get diagnostics v_rows = row_count; erased_from := 'channel_states'; erased_rows := v_rows; return next;
    -- The installation's snapshots, prompts and exposures.
    foreach v_table in array array['settings_snapshots', 'permission_prompts', 'experiment_exposures'] loop
        execute format('with gone as (
                            delete from %I t where t.app_id = $1 and t.installation_id = $2
                            returning t.app_id, t.installation_id, t.occurred_at)
                        select pushledger_queue_telemetry(%L, true, array_agg(app_id), array_agg(installation_id),
                                                          array_agg(occurred_at))
                          from gone', v_table, v_table)
          into v_rows using p_app, p_installation;
        erased_from := v_table; erased_rows := v_rows; return next;
    end loop;
    delete from installations where app_id = p_app and installation_id = p_installation;
    get diagnostics v_rows = row_count; erased_from := 'installations'; erased_rows := v_rows; return next;
    -- Failed events of the batches committed since the first pass: by column only, under the lock.
    v_failed := v_failed + pushledger_erase_failed_events(p_app, p_installation, p_token, false);
    erased_from := 'failed_events'; erased_rows := v_failed; return next;

    perform pg_advisory_xact_lock(hashtext('pushledger_refresh_prompt_rollups'));
    -- As of the as_of the members hold, so every other row stays as of the last refresh.
    perform pushledger_apply_prompt_members(coalesce((select s.as_of from prompt_rollup_state s), now()), p_app,
                                            array[p_installation])
     where p_installation is not null;
    delete from prompt_rollup_dirty_installations where app_id = p_app and installation_id = p_installation;

    insert into erasures (app_id, subject, subject_hash)
    values (p_app, case when p_token is null then 'installation' else 'token' end,
            sha256(convert_to(coalesce(p_installation::text, p_token), 'UTF8')))
    on conflict (app_id, subject, subject_hash) do update set last_erased_at = now(), runs = erasures.runs + 1;
end
$$;
