-- Incremental rollups (docs/rollups.md): the outcome of every send kept with the facts it was
-- judged on, a queue of what arrived since the last refresh, and the refresh's own state.

-- One row per send with sent_at at or before the last refresh's as_of, keyed like sends. The
-- rollups are, at all times, the grouping of these rows; a refresh rewrites the rows of the
-- sends its new inputs affect and moves the rollups by the difference.
create table send_outcomes (
    app_id               text        not null,
    sent_at              timestamptz not null,
    event_id             uuid        not null,
    day                  date        not null,
    notification_id      uuid        not null,
    installation_id      uuid,
    provider             text        not null,
    channel              text        not null,
    campaign             text,
    status               integer     not null,
    reason               text,
    reason_class         text,
    token_invalid        boolean     not null,
    to_invalid_token     boolean     not null,
    platform             text        not null,
    app_version          text,
    display_state        text        not null,  -- unknown | can_display | cannot_display
    channel_blocked      boolean     not null,
    instrumented         boolean     not null,
    opened               boolean     not null,
    received_displayed   boolean     not null,
    received_undisplayed boolean     not null,
    outcome              text        not null,
    primary key (app_id, sent_at, event_id)
);
-- Sends still pending: re-judged when they leave the confirmation window.
create index send_outcomes_pending on send_outcomes (app_id, sent_at) where outcome = 'pending';
-- Sends of a slice not (yet) instrumented: re-judged when its first receipt of the day arrives.
create index send_outcomes_uninstrumented on send_outcomes (app_id, day, platform, app_version) where not instrumented;

-- What arrived since the last refresh, one row per statement and kind, written by the
-- triggers of sql/engine/dirty_days.sql from the statement's own rows (no join at ingest).
-- kind: send (keys: event ids, times: sent_at), token (an invalidating result stored or removed;
-- keys: token keys, providers, times: its sent_at), registration (the same of a registration),
-- receipt and open (keys: notification ids, times: occurred_at), snapshot (keys: installation
-- ids, times: occurred_at), installation (keys: installation ids). due_at: the latest time a
-- row names; a refresh as of an earlier time keeps the row (append-only: writers never wait).
create table rollup_inputs (
    app_id    text          not null,
    kind      text          not null check (kind in ('send', 'token', 'registration', 'receipt', 'open', 'snapshot', 'installation')),
    keys      uuid[]        not null,
    times     timestamptz[] not null,
    providers text[],
    due_at    timestamptz   not null,
    queued_at timestamptz   not null default now()
);

-- Tap-through landing per notification with opens: the day, channel and campaign of its latest
-- send attempt and its opens (sql/engine/landings.sql). open_landings_daily is the grouping of
-- these rows; a refresh rewrites the rows of the notifications that got an open or a send.
create table open_landing_notifications (
    app_id          text    not null,
    notification_id uuid    not null,
    day             date    not null,
    channel         text    not null,
    campaign        text,
    opens           integer not null,
    landed_reported integer not null,
    misrouted       integer not null,
    primary key (app_id, notification_id)
);

-- The last completed refresh (pushledger_rollup_status()).
create table rollup_refresh_state (
    singleton      boolean     primary key default true check (singleton),
    as_of          timestamptz not null,
    window_length  interval    not null,
    refreshed_at   timestamptz not null,
    full_at        timestamptz,
    reclassified   bigint      not null
);

grant select on send_outcomes, open_landing_notifications, rollup_refresh_state to pushledger_reader;

-- Every existing send is judged by the next refresh: it finds no row and recomputes in full.
