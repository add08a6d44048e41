-- The second look a send's resolution needs when its batch and a registration of its token
-- commit at the same time: the send's look-up of registrations cannot see the other batch's
-- row, nor that batch's re-resolution of earlier sends the send, so the send would keep no
-- installation (or an earlier registration's). Each batch leaves the check to a later
-- transaction, which sees both: its fresh registrations (registrations, as a busy writer's
-- deferred re-resolution already does) and the keys of its sends stored without an
-- installation of their own (token_sends, below), in derived_inputs, applied by
-- pushledger_apply_derived_inputs() with the rest. telemetry is empty in a row that only checks.
create type pushledger_send_key as (app_id text, sent_at timestamptz, event_id uuid);
alter table derived_inputs add column token_sends pushledger_send_key[];
