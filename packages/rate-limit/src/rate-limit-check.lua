-- Requests-per-second checks for one account, decided atomically on the Redis clock (docs/rate-limits.md).
-- Read by rate-limiter.ts and by the two-process test fixture, so both run the same script.
-- One call decides a batch: the checks of an account that arrive in the same event-loop
-- turn (rate-limiter.ts), in order, exactly as that many calls one after another would.
--
-- KEYS[1]  request window base  <prefix>:rl:{<account>}:rps  (":<epochSecond>" appended here)
--   The second comes from TIME, so the full key name can only be built in here.
--   The {<account>} hash tag keeps it on the declared key's Redis Cluster slot.
-- ARGV[1]  checks in the batch, then the requests per second of each (each check is one request)
-- Returns  six per check, flat: {allowed 0|1, reason or "", limit, remaining, reset epoch s, retry-after s}
--
-- TIME before a write needs effect replication: the default from Redis 5, the only mode from 7.
-- (The daily quota is counted in PostgreSQL with the messages it counts: docs/decisions.md#daily-quota.)

local now = tonumber(redis.call('TIME')[1])
local reset = now + 1
local window_key = KEYS[1] .. ':' .. now

local function check(limit)
  local used = tonumber(redis.call('GET', window_key) or '0')
  if used + 1 > limit then
    -- A refused request is not counted: the counter stays at the limit.
    return {0, 'RATE_LIMITED', limit, math.max(limit - used, 0), reset, 1}
  end
  used = redis.call('INCR', window_key)
  -- 2 s, not 1: the key must outlive its second even when TIME and the expiry clock disagree slightly.
  if used == 1 then redis.call('EXPIRE', window_key, 2) end
  return {1, '', limit, math.max(limit - used, 0), reset, 0}
end

local replies = {}
for i = 1, tonumber(ARGV[1]) do
  local reply = check(tonumber(ARGV[1 + i]))
  for j = 1, 6 do replies[#replies + 1] = reply[j] end
end
return replies
