-- Installation and token upserts as HOT updates: the writer updates an installation row on every
-- batch its app posts in (last seen, last received, versions), and a token's row on every
-- registration. An update that changes no indexed column and finds room on its page writes
-- no index entry; the free space below leaves that room (new pages only: rows already stored
-- move as they are updated).
alter table installations set (fillfactor = 80);
alter table push_tokens set (fillfactor = 90);

-- installations.last_received_at changes on every batch, so its index made every installation
-- update a non-HOT one. Its only reader, the alert check for silent ingest
-- (pushledger_alert_latest_telemetry, sql/alerts/counts.sql), takes the latest per app of
-- every installation: a grouped max that reads the whole table with or without it.
drop index if exists installations_app_received;

-- A prefix of experiment_exposures_installation_time (app_id, installation_id, occurred_at),
-- which serves every look-up by installation (prompt cohorts, signs of life, erasure).
drop index if exists experiment_exposures_installation;
