-- A frozen fixture of scripts/bench.sh: the rollup queue's statement triggers as the schema had
-- them until the writer enqueued its own work (sql/engine/dirty_days.sql and
-- sql/engine/prompt_rollups.sql then), on the tables the writer fills. Applied to the database
-- of the headline `psql \copy` baseline before its timed copy, so that baseline pays for the
-- same queue whatever build is measured: today's COPY. Only the insert side: a COPY only
-- inserts. The row-level installations triggers fire on an update alone, never during a COPY;
-- they are here as the schema had them on that table. Needs bench/sql/bench.sql (bench.tables,
-- bench.drop_triggers) applied first; run with ON_ERROR_STOP.

-- Whatever triggers the measured build's schema has on these tables go first.
select bench.drop_triggers(bench.tables()) as dropped;

-- Sends stored: their keys, and the invalidating results' tokens.
create or replace function bench.queue_sends()
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
        insert into rollup_inputs (app_id, kind, keys, times, due_at)
        select app_id, 'notification', array_agg(notification_id), array_agg(sent_at), '-infinity'
          from changed_rows group by app_id;
    end if;
    return null;
end
$$;

-- Receipts and opens.
create or replace function bench.queue_confirmations()
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

-- Snapshots.
create or replace function bench.queue_snapshots()
returns trigger
language plpgsql as $$
begin
    insert into rollup_inputs (app_id, kind, keys, times, due_at)
    select app_id, 'snapshot', array_agg(installation_id), array_agg(occurred_at), '-infinity'
      from changed_rows group by app_id;
    return null;
end
$$;

-- Token registrations.
create or replace function bench.queue_registrations()
returns trigger
language plpgsql as $$
begin
    insert into rollup_inputs (app_id, kind, keys, times, providers, due_at)
    select app_id, 'registration', array_agg(token_key), array_agg(occurred_at), array_agg(provider), '-infinity'
      from changed_rows group by app_id;
    return null;
end
$$;

-- Telemetry of any type: a sign of life of its installation.
create or replace function bench.queue_life()
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

-- New installations.
create or replace function bench.queue_installations()
returns trigger
language plpgsql as $$
begin
    insert into rollup_inputs (app_id, kind, keys, times, due_at)
    select app_id, 'installation', array_agg(installation_id), '{}', '-infinity'
      from changed_rows group by app_id;
    return null;
end
$$;

-- An installation's platform changed (row level, on update).
create or replace function bench.queue_installation_platform()
returns trigger
language plpgsql as $$
begin
    insert into rollup_inputs (app_id, kind, keys, times, due_at)
    values (new.app_id, 'installation', array[new.installation_id], '{}', '-infinity');
    return null;
end
$$;

-- Prompt cohorts: the installations whose members may have changed.
create or replace function bench.queue_prompt_members()
returns trigger
language plpgsql as $$
begin
    insert into prompt_rollup_dirty_installations (app_id, installation_id, due_at)
    select app_id, installation_id, max(occurred_at)
      from changed_rows group by 1, 2 order by 1, 2;
    return null;
end
$$;

-- An installation's first_seen_at or platform changed (row level, on update).
create or replace function bench.queue_prompt_installation()
returns trigger
language plpgsql as $$
begin
    insert into prompt_rollup_dirty_installations (app_id, installation_id, due_at)
    values (new.app_id, new.installation_id, '-infinity');
    return null;
end
$$;

-- The triggers, named as the schema's with bench_ before (so they fire in the same order).
create trigger bench_sends_dirty_insert after insert on sends
    referencing new table as changed_rows for each statement execute function bench.queue_sends();

create trigger bench_notification_receipts_dirty after insert on notification_receipts
    referencing new table as changed_rows for each statement execute function bench.queue_confirmations();

create trigger bench_notification_opens_dirty after insert on notification_opens
    referencing new table as changed_rows for each statement execute function bench.queue_confirmations();

create trigger bench_settings_snapshots_dirty after insert on settings_snapshots
    referencing new table as changed_rows for each statement execute function bench.queue_snapshots();

create trigger bench_token_registrations_dirty after insert on token_registrations
    referencing new table as changed_rows for each statement execute function bench.queue_registrations();

create trigger bench_settings_snapshots_life after insert on settings_snapshots
    referencing new table as changed_rows for each statement execute function bench.queue_life();

create trigger bench_permission_prompts_life after insert on permission_prompts
    referencing new table as changed_rows for each statement execute function bench.queue_life();

create trigger bench_experiment_exposures_life after insert on experiment_exposures
    referencing new table as changed_rows for each statement execute function bench.queue_life();

create trigger bench_token_registrations_life after insert on token_registrations
    referencing new table as changed_rows for each statement execute function bench.queue_life();

create trigger bench_notification_receipts_life after insert on notification_receipts
    referencing new table as changed_rows for each statement execute function bench.queue_life();

create trigger bench_notification_opens_life after insert on notification_opens
    referencing new table as changed_rows for each statement execute function bench.queue_life();

create trigger bench_installations_dirty_insert after insert on installations
    referencing new table as changed_rows for each statement execute function bench.queue_installations();

create trigger bench_installations_dirty_platform after update on installations
    for each row when (old.platform is distinct from new.platform)
    execute function bench.queue_installation_platform();

create trigger bench_settings_snapshots_prompt_dirty after insert on settings_snapshots
    referencing new table as changed_rows for each statement execute function bench.queue_prompt_members();

create trigger bench_permission_prompts_prompt_dirty after insert on permission_prompts
    referencing new table as changed_rows for each statement execute function bench.queue_prompt_members();

create trigger bench_experiment_exposures_prompt_dirty after insert on experiment_exposures
    referencing new table as changed_rows for each statement execute function bench.queue_prompt_members();

create trigger bench_installations_prompt_dirty after update on installations
    for each row when (old.first_seen_at is distinct from new.first_seen_at
                       or old.platform is distinct from new.platform)
    execute function bench.queue_prompt_installation();
