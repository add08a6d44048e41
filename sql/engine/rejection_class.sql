-- Rejection classes (metrics.md "Provider rejections"): one send result's class, and the
-- partial index of token-invalidating results the engine reads. The index is rebuilt whenever
-- this file is applied, so it always matches the function it is built on.

-- metrics.md rejection reason classes; null for a 2xx status. token_invalid first: an FCM
-- UNREGISTERED counts whatever its status, an APNs 410 whatever its reason, a Web Push 404 or
-- 410 (the subscription is gone; an APNs 404 is a bad request path).
-- Reads nothing; writes nothing.
drop index if exists sends_token_invalid;
drop function if exists pushledger_reason_class(integer, text);
create or replace function pushledger_reason_class(p_provider text, p_status integer, p_reason text)
returns text
language sql immutable parallel safe as $$
    select case
        when p_status between 200 and 299 then null
        when p_status = 410 or (p_status = 400 and p_reason = 'BadDeviceToken')
             or p_reason = 'UNREGISTERED' or (p_provider = 'webpush' and p_status = 404) then 'token_invalid'
        when p_status = 429 or p_reason = 'QUOTA_EXCEEDED' then 'throttled'
        when p_status in (401, 403) then 'auth'
        when p_status in (400, 413) or p_reason = 'INVALID_ARGUMENT' then 'payload'
        when p_status >= 500 or p_status = 0 then 'provider_error'
        else 'other'
    end
$$;

-- Every class pushledger_reason_class gives (metrics.md's five, plus 'other'): the classes the
-- rejections_up alert watches.
-- Reads nothing; writes nothing.
create or replace function pushledger_alert_reason_classes()
returns setof text
language sql immutable as $$
    values ('token_invalid'), ('throttled'), ('auth'), ('payload'), ('provider_error'), ('other')
$$;

-- Finds the latest earlier send result that invalidated a token (partial: few rows).
create index sends_token_invalid on sends (app_id, provider, token_key, sent_at)
    where pushledger_reason_class(provider, status, reason) = 'token_invalid';
