-- Rollups re-opened by token history. Whether a send went "to a token already known invalid"
-- depends on other rows than its own: the latest earlier invalidating result for the token, and
-- registrations of the token between that result and the send (0008, `to_invalid`). 0005 only
-- re-opened the days of the changed sends themselves, so two late arrivals left other days'
-- `to_invalid_token` stale until a manual re-mark:
--   * a back-filled invalidating result (APNs 410/BadDeviceToken, FCM UNREGISTERED) re-opens the
--     days of the later sends to that token;
--   * a late registration of a token re-opens the days of the sends to it at or after the
--     registration, when the token had an invalidating result before the registration.
-- Both look up the `sends_token` index; the usual live order (result after the sends it follows,
-- registration before the sends it precedes) finds no row to mark.

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

create function pushledger_mark_dirty_registrations()
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

create trigger token_registrations_dirty after insert on token_registrations
    referencing new table as changed_rows for each statement execute function pushledger_mark_dirty_registrations();
