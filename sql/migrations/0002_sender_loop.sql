-- The sender's loop: raw provider answers on sends, and the invalid-token feed.

-- The provider's HTTP body as the sender passed it (telemetry-v1.md, response_body). text, not
-- jsonb: it is stored exactly as given (key order, whitespace, duplicate keys, and bodies that
-- are not JSON at all, such as a proxy's HTML error page). In psql, `response_body::jsonb`
-- reads a JSON one. Nullable without a default: adding it rewrites no partition.
alter table sends add column response_body text;
alter table pushledger_stage_sends_shape add column response_body text;
alter table pushledger_stage_sends_shape alter column response_body set storage plain;  -- staging without TOAST, like its other columns

-- Tokens invalid now (telemetry-v1.md, GET /v1/tokens/invalid): one row per (app, provider,
-- token) while a stored invalidating result has no later registration. Kept by the writer in
-- the transaction that stores the result or the registration (sql/writer/invalidations.sql).
--
-- feed_xid is the row's position in the feed: the transaction that made the token invalid
-- (again). Readers serve only positions below the oldest transaction still running
-- (pg_snapshot_xmin), so a position can never appear behind a reader's cursor: every
-- transaction below that horizon has finished, and every later one gets a higher id.
create table token_invalidations (
    app_id          text        not null,
    provider        text        not null check (provider in ('apns', 'fcm')),
    token_key       uuid        not null,
    token           text        not null,
    invalidated_at  timestamptz not null,   -- sent_at of the earliest invalidating result after the latest registration
    status          integer     not null,
    reason          text,
    unregistered_at timestamptz,
    feed_xid        xid8        not null,
    primary key (app_id, provider, token_key)
);
-- The feed's read: one app, in position order, from a cursor.
create index token_invalidations_feed on token_invalidations (app_id, feed_xid, provider, token_key);

-- FCM Aggregated Delivery Data (the Data API's androidDeliveryData entries), as downloaded:
-- one row per (app, FCM app id, day, analytics label), the entry kept whole. jsonb, not text
-- as for response_body: these are JSON by contract and the provider cross-check reads into
-- them. day is FCM's day, in America/Los_Angeles time; analytics_label '' is the entry of
-- unlabeled messages. Re-importing a day replaces all of that day's rows.
create table fcm_delivery_data (
    app_id          text        not null,
    fcm_app_id      text        not null,
    day             date        not null,
    analytics_label text        not null,
    entry           jsonb       not null,
    imported_at     timestamptz not null default now(),
    primary key (app_id, fcm_app_id, day, analytics_label)
);
create index fcm_delivery_data_app_day on fcm_delivery_data (app_id, day);

grant select on token_invalidations, fcm_delivery_data to pushledger_reader;

-- Tokens already invalid when this migration runs enter the feed once, at this position: the
-- earliest invalidating result after each token's latest registration, as
-- pushledger_first_invalidation (sql/writer/invalidations.sql) reads it. Run as dynamic SQL
-- only where such tokens exist: a fresh database has none and no definitions yet.
do $$
begin
    if exists (select 1 from push_tokens where invalidated_at is not null) then
        execute $fill$
            insert into token_invalidations (app_id, provider, token_key, token, invalidated_at, status, reason,
                                             unregistered_at, feed_xid)
            select p.app_id, p.provider, p.token_key, p.token, inv.sent_at, inv.status, inv.reason, inv.unregistered_at,
                   pg_current_xact_id()
              from push_tokens p
              cross join lateral (
                  select s.sent_at, s.status, s.reason, s.unregistered_at from sends s
                   where s.app_id = p.app_id and s.provider = p.provider and s.token_key = p.token_key
                     and pushledger_reason_class(s.status, s.reason) = 'token_invalid'
                     and (p.last_registered_at is null or s.sent_at > p.last_registered_at)
                   order by s.sent_at, s.event_id
                   limit 1) inv
             where p.invalidated_at is not null
            on conflict do nothing
        $fill$;
    end if;
end
$$;
