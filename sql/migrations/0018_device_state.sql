-- The device state one settings snapshot records, as one value: the set-based classification
-- (sql/engine/classify.sql) finds a send's snapshot in the window or before it, and takes the
-- whole state from whichever it found, so no field can come from the other.
create type pushledger_device_state as (
    platform text, app_version text, can_display boolean, authorization_status text, os_version text,
    sdk_int integer, standby_bucket text, background_restricted boolean, ignoring_battery_optimizations boolean,
    low_power_mode boolean);
