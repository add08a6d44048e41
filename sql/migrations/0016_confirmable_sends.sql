-- Contract v1.3 on sends: whether the push could produce a receipt (docs/metrics.md "Which
-- sends can confirm"). Null: the sender did not say (a v1.2 sender), judged as before.

-- APNs: the payload's aps.mutable-content was 1 (a Notification Service Extension runs).
-- FCM: the message carried a notification block, data, or both.
alter table sends
    add column mutable_content boolean,
    add column message_kind text check (message_kind in ('notification', 'data', 'hybrid'));
alter table pushledger_stage_sends_shape add column mutable_content boolean, add column message_kind text;
