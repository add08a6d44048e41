-- The invalid-token feed's read side (GET /v1/tokens/invalid, pushledger tokens invalid): pages
-- in position order below the horizon, so a walk never loses or repeats a token.

-- One page of the invalid-token feed of an app: positions after (p_after_xid, p_after_provider,
-- p_after_key) and below p_horizon (pg_snapshot_xmin when the walk began), in position order.
-- installation_id: the installation the token last resolved to (its latest registration, else
-- the invalidating send's).
create or replace function pushledger_invalid_tokens(
    p_app text, p_since timestamptz, p_after_xid xid8, p_after_provider text, p_after_key uuid,
    p_horizon xid8, p_limit integer)
returns table (provider text, token text, invalidated_at timestamptz, status integer, reason text,
               unregistered_at timestamptz, installation_id uuid, feed_xid xid8, token_key uuid)
language sql stable as $$
    select t.provider, t.token, t.invalidated_at, t.status, t.reason, t.unregistered_at, p.installation_id,
           t.feed_xid, t.token_key
      from token_invalidations t
      left join push_tokens p on p.app_id = t.app_id and p.provider = t.provider and p.token_key = t.token_key
     where t.app_id = p_app
       and (t.feed_xid, t.provider, t.token_key) > (p_after_xid, p_after_provider, p_after_key)
       and t.feed_xid < p_horizon
       and (p_since is null or t.invalidated_at >= p_since)
     order by t.feed_xid, t.provider, t.token_key
     limit p_limit
$$;

-- The feed's horizon: positions below it belong to finished transactions only.
create or replace function pushledger_invalid_tokens_horizon()
returns xid8
language sql volatile as $$ select pg_snapshot_xmin(pg_current_snapshot()) $$;

