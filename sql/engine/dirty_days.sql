-- What arrived since the last rollup refresh: statement-level triggers queue, per statement and
-- app, the keys of the rows the statement wrote (table rollup_inputs), read from its own rows
-- only. Which sends the keys affect is found by the refresh (sql/engine/rollups.sql), by index,
-- so ingest pays one small insert a statement and no join. Channel states are written with
-- their snapshot, in its transaction: the snapshot's key covers them.
-- Whole days to recompute (after a repair, a definition change or an erasure) go into
-- rollup_dirty_days (pushledger_mark_rollups_dirty).

drop function if exists pushledger_mark_dirty_sends() cascade;
drop function if exists pushledger_mark_dirty_receipts() cascade;
drop function if exists pushledger_mark_dirty_snapshots() cascade;
drop function if exists pushledger_mark_dirty_registrations() cascade;

-- Sends stored, changed or removed; and the invalidating results among them, whose token's
-- later sends may now (or no longer) go "to a token already known invalid".
-- Reads the statement's rows (changed_rows); writes rollup_inputs.
create or replace function pushledger_queue_sends()
returns trigger
language plpgsql as $$
begin
    insert into rollup_inputs (app_id, kind, keys, times, due_at)
    select app_id, 'send', array_agg(event_id), array_agg(sent_at), max(sent_at)
      from changed_rows group by app_id;
    insert into rollup_inputs (app_id, kind, keys, times, providers, due_at)
    select app_id, 'token', array_agg(token_key), array_agg(sent_at), array_agg(provider), '-infinity'
      from changed_rows where pushledger_reason_class(provider, status, reason) = 'token_invalid' group by app_id;
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

-- Receipts and opens; kept until as_of reaches them.
-- Reads the statement's rows (changed_rows); writes rollup_inputs.
create or replace function pushledger_queue_confirmations()
returns trigger
language plpgsql as $$
begin
    insert into rollup_inputs (app_id, kind, keys, times, due_at)
    select app_id, case tg_table_name when 'notification_receipts' then 'receipt' else 'open' end,
           array_agg(notification_id), array_agg(occurred_at), max(occurred_at)
      from changed_rows group by app_id;
    return null;
end
$$;

-- Snapshots: the as-of state of the installation's sends from their time on.
-- Reads the statement's rows (changed_rows); writes rollup_inputs.
create or replace function pushledger_queue_snapshots()
returns trigger
language plpgsql as $$
begin
    insert into rollup_inputs (app_id, kind, keys, times, due_at)
    select app_id, 'snapshot', array_agg(installation_id), array_agg(occurred_at), '-infinity'
      from changed_rows group by app_id;
    return null;
end
$$;

-- Registrations: a token registered again after an invalidating result is live from then on.
-- Reads the statement's rows (changed_rows); writes rollup_inputs.
create or replace function pushledger_queue_registrations()
returns trigger
language plpgsql as $$
begin
    insert into rollup_inputs (app_id, kind, keys, times, providers, due_at)
    select app_id, 'registration', array_agg(token_key), array_agg(occurred_at), array_agg(provider), '-infinity'
      from changed_rows group by app_id;
    return null;
end
$$;

-- Telemetry of any type stored or removed: a sign of life of its installation, which may change
-- the cause of its earlier unconfirmed sends (metrics.md "Why a send is unconfirmed"). Kept until
-- as_of reaches it: a sign of life counts at or before as_of.
-- Reads the statement's rows (changed_rows); writes rollup_inputs.
create or replace function pushledger_queue_life()
returns trigger
language plpgsql as $$
begin
    insert into rollup_inputs (app_id, kind, keys, times, due_at)
    select app_id, 'life', array_agg(installation_id), array_agg(occurred_at),
           case when tg_op = 'DELETE' then '-infinity' else max(occurred_at) end
      from changed_rows group by app_id;
    return null;
end
$$;

-- New installations, and a changed platform: the platform of sends with no as-of snapshot.
-- Reads the statement's rows (changed_rows); writes rollup_inputs.
create or replace function pushledger_queue_installations()
returns trigger
language plpgsql as $$
begin
    insert into rollup_inputs (app_id, kind, keys, times, due_at)
    select app_id, 'installation', array_agg(installation_id), '{}', '-infinity'
      from changed_rows group by app_id;
    return null;
end
$$;

-- Reads the changed installation row; writes rollup_inputs.
create or replace function pushledger_queue_installation_platform()
returns trigger
language plpgsql as $$
begin
    insert into rollup_inputs (app_id, kind, keys, times, due_at)
    values (new.app_id, 'installation', array[new.installation_id], '{}', '-infinity');
    return null;
end
$$;

create or replace trigger sends_dirty_insert after insert on sends
    referencing new table as changed_rows for each statement execute function pushledger_queue_sends();

create or replace trigger sends_dirty_update_old after update on sends
    referencing old table as changed_rows for each statement execute function pushledger_queue_sends();

create or replace trigger sends_dirty_update_new after update on sends
    referencing new table as changed_rows for each statement execute function pushledger_queue_sends();

create or replace trigger sends_dirty_delete after delete on sends
    referencing old table as changed_rows for each statement execute function pushledger_queue_sends();

create or replace trigger notification_receipts_dirty after insert on notification_receipts
    referencing new table as changed_rows for each statement execute function pushledger_queue_confirmations();

create or replace trigger notification_opens_dirty after insert on notification_opens
    referencing new table as changed_rows for each statement execute function pushledger_queue_confirmations();

-- Removed ones too (an erasure): their notifications' sends lose a receipt.
create or replace trigger notification_receipts_dirty_delete after delete on notification_receipts
    referencing old table as changed_rows for each statement execute function pushledger_queue_confirmations();

create or replace trigger notification_opens_dirty_delete after delete on notification_opens
    referencing old table as changed_rows for each statement execute function pushledger_queue_confirmations();

create or replace trigger settings_snapshots_dirty after insert on settings_snapshots
    referencing new table as changed_rows for each statement execute function pushledger_queue_snapshots();

create or replace trigger token_registrations_dirty after insert on token_registrations
    referencing new table as changed_rows for each statement execute function pushledger_queue_registrations();

create or replace trigger token_registrations_dirty_delete after delete on token_registrations
    referencing old table as changed_rows for each statement execute function pushledger_queue_registrations();

-- Signs of life: every telemetry table, stored and removed rows.
create or replace trigger settings_snapshots_life after insert on settings_snapshots
    referencing new table as changed_rows for each statement execute function pushledger_queue_life();

create or replace trigger settings_snapshots_life_delete after delete on settings_snapshots
    referencing old table as changed_rows for each statement execute function pushledger_queue_life();

create or replace trigger permission_prompts_life after insert on permission_prompts
    referencing new table as changed_rows for each statement execute function pushledger_queue_life();

create or replace trigger permission_prompts_life_delete after delete on permission_prompts
    referencing old table as changed_rows for each statement execute function pushledger_queue_life();

create or replace trigger experiment_exposures_life after insert on experiment_exposures
    referencing new table as changed_rows for each statement execute function pushledger_queue_life();

create or replace trigger experiment_exposures_life_delete after delete on experiment_exposures
    referencing old table as changed_rows for each statement execute function pushledger_queue_life();

create or replace trigger token_registrations_life after insert on token_registrations
    referencing new table as changed_rows for each statement execute function pushledger_queue_life();

create or replace trigger token_registrations_life_delete after delete on token_registrations
    referencing old table as changed_rows for each statement execute function pushledger_queue_life();

create or replace trigger notification_receipts_life after insert on notification_receipts
    referencing new table as changed_rows for each statement execute function pushledger_queue_life();

create or replace trigger notification_receipts_life_delete after delete on notification_receipts
    referencing old table as changed_rows for each statement execute function pushledger_queue_life();

create or replace trigger notification_opens_life after insert on notification_opens
    referencing new table as changed_rows for each statement execute function pushledger_queue_life();

create or replace trigger notification_opens_life_delete after delete on notification_opens
    referencing old table as changed_rows for each statement execute function pushledger_queue_life();

create or replace trigger installations_dirty_insert after insert on installations
    referencing new table as changed_rows for each statement execute function pushledger_queue_installations();

create or replace trigger installations_dirty_platform after update on installations
    for each row when (old.platform is distinct from new.platform)
    execute function pushledger_queue_installation_platform();

-- Marks days dirty by hand (after a repair or a change of definitions); the next refresh
-- recomputes them whole.
-- Reads nothing; writes rollup_dirty_days.
create or replace function pushledger_mark_rollups_dirty(p_app text, p_from date, p_to date)
returns void
language sql as $$
    insert into rollup_dirty_days (app_id, day)
    select p_app, d::date from generate_series(p_from, p_to, interval '1 day') d
$$;
