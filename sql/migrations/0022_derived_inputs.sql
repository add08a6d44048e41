-- Derived state a busy writer leaves to later (sql/writer/apply.sql): a batch stored while more
-- requests wait queues its installations' upserts and the re-resolution of earlier sends by its
-- registrations here, in its own transaction, instead of applying them before its answer.
-- pushledger_apply_derived_inputs() applies and deletes them in one transaction of its own, in
-- queue order; the writer calls it when its queue runs dry (and every so many batches), and
-- every reader that needs them current calls it first: a rollup pass, an erasure.
-- One row per app of a batch (a table split by app, as every app's table is): telemetry, every
-- valid event of the app in the batch (later copies too: they prove the installation alive);
-- registrations, its fresh push_token events; id, the queue's order.
create table derived_inputs (
    app_id text not null,
    id bigint generated always as identity,
    queued_at timestamptz not null default now(),
    telemetry pushledger_batch_telemetry[] not null,
    registrations pushledger_batch_telemetry[],
    primary key (app_id, id)
);
