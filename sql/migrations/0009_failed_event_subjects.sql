-- The failed-event store keeps bounded text and whose it was (docs/reliability.md "Hostile
-- input"): raw_json holds at most the first 8 KiB of a refused body or rejected event;
-- raw_bytes and raw_sha256 describe all the bytes received. installation_id and token name the
-- installation and push token the request or event carried (the envelope's installation for a
-- rejected telemetry event, the send's own for a rejected send), so erasure removes them by
-- column, within the app, without reading raw text. All four are null on rows stored before.
alter table failed_events
    add column raw_bytes       integer,
    add column raw_sha256      bytea check (length(raw_sha256) = 32),
    add column installation_id uuid,
    add column token           text;

create index failed_events_installation on failed_events (app_id, installation_id)
    where installation_id is not null;
-- Tokens reach 4,096 bytes, past a B-tree entry: indexed by their MD5 as elsewhere (token_key).
create index failed_events_token on failed_events (app_id, (md5(token)::uuid))
    where token is not null;
