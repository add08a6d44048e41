-- Days whose rollups must be recomputed, marked by statement-level triggers so every path that
-- changes inputs (the writer, imports, repairs) is covered. Token history re-opens other days
-- too: whether a send went "to a token already known invalid" depends on the latest earlier
-- invalidating result and on registrations between it and the send, so a back-filled
-- invalidating result re-opens the days of the later sends to that token, and a late
-- registration the days of the token's sends at or after it.

create or replace function pushledger_mark_dirty_sends()
returns trigger
language plpgsql as $$
begin
    insert into rollup_dirty_days (app_id, day)
    select distinct app_id, day from (
        select c.app_id, pushledger_day(c.sent_at) as day
          from changed_rows c
        union all
        select s.app_id, pushledger_day(s.sent_at)
          from changed_rows c
          join sends s on s.app_id = c.app_id and s.provider = c.provider and s.token_key = c.token_key
                      and s.sent_at > c.sent_at
         where pushledger_reason_class(c.status, c.reason) = 'token_invalid'
    ) days order by 1, 2;
    return null;
end
$$;

create or replace function pushledger_mark_dirty_receipts()
returns trigger
language plpgsql as $$
begin
    insert into rollup_dirty_days (app_id, day)
    select distinct app_id, day from (
        select r.app_id, pushledger_day(r.occurred_at) as day
          from changed_rows r where tg_table_name = 'notification_receipts'
        union all
        select s.app_id, pushledger_day(s.sent_at)
          from changed_rows r join sends s on s.app_id = r.app_id and s.notification_id = r.notification_id
    ) days order by 1, 2;
    return null;
end
$$;

create or replace function pushledger_mark_dirty_snapshots()
returns trigger
language plpgsql as $$
begin
    insert into rollup_dirty_days (app_id, day)
    select distinct s.app_id, pushledger_day(s.sent_at)
      from changed_rows n
      join sends s on s.app_id = n.app_id and s.installation_id = n.installation_id and s.sent_at >= n.occurred_at
     order by 1, 2;
    return null;
end
$$;

create or replace function pushledger_mark_dirty_registrations()
returns trigger
language plpgsql as $$
begin
    insert into rollup_dirty_days (app_id, day)
    select distinct s.app_id, pushledger_day(s.sent_at)
      from changed_rows r
      join sends s on s.app_id = r.app_id and s.provider = r.provider and s.token_key = r.token_key
                  and s.sent_at >= r.occurred_at
     where exists (
           select 1 from sends p
            where p.app_id = r.app_id and p.provider = r.provider and p.token_key = r.token_key
              and p.sent_at < r.occurred_at
              and pushledger_reason_class(p.status, p.reason) = 'token_invalid')
     order by 1, 2;
    return null;
end
$$;

create or replace trigger sends_dirty_insert after insert on sends
    referencing new table as changed_rows for each statement execute function pushledger_mark_dirty_sends();

create or replace trigger sends_dirty_update_old after update on sends
    referencing old table as changed_rows for each statement execute function pushledger_mark_dirty_sends();

create or replace trigger sends_dirty_update_new after update on sends
    referencing new table as changed_rows for each statement execute function pushledger_mark_dirty_sends();

create or replace trigger sends_dirty_delete after delete on sends
    referencing old table as changed_rows for each statement execute function pushledger_mark_dirty_sends();

create or replace trigger notification_receipts_dirty after insert on notification_receipts
    referencing new table as changed_rows for each statement execute function pushledger_mark_dirty_receipts();

create or replace trigger notification_opens_dirty after insert on notification_opens
    referencing new table as changed_rows for each statement execute function pushledger_mark_dirty_receipts();

create or replace trigger settings_snapshots_dirty after insert on settings_snapshots
    referencing new table as changed_rows for each statement execute function pushledger_mark_dirty_snapshots();

create or replace trigger token_registrations_dirty after insert on token_registrations
    referencing new table as changed_rows for each statement execute function pushledger_mark_dirty_registrations();

-- Marks days dirty by hand (after a repair or a change of definitions); the next refresh
-- recomputes them.
create or replace function pushledger_mark_rollups_dirty(p_app text, p_from date, p_to date)
returns void
language sql as $$
    insert into rollup_dirty_days (app_id, day)
    select p_app, d::date from generate_series(p_from, p_to, interval '1 day') d
$$;
