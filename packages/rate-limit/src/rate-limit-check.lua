-- Rate-limit checks for one account, decided atomically on the Redis clock (docs/rate-limits.md).
-- Read by rate-limiter.ts and by the two-process test fixture, so both run the same script.
-- One call decides a batch: the checks of an account that arrive in the same event-loop
-- turn (rate-limiter.ts), in order, exactly as that many calls one after another would.
--
-- KEYS[1]  request window base  <prefix>:rl:{<account>}:rps  (":<epochSecond>" appended here)
-- KEYS[2]  daily quota base     <prefix>:rl:{<account>}:day  (":<yyyymmdd>" appended here)
--   The second and the day come from TIME, so the full key names can only be built in here.
--   The {<account>} hash tag keeps them on the declared keys' Redis Cluster slot.
-- ARGV[1]  checks in the batch, then four per check:
--   requests per second, daily message quota (-1 for none), messages in the check,
--   requests in the check (0: quota only)
-- Returns  seven per check, flat: {allowed 0|1, reason or "", limit, remaining, reset epoch s,
--          retry-after s, quota day or ""}
--
-- TIME before a write needs effect replication: the default from Redis 5, the only mode from 7.

-- Days since 1970-01-01 to "yyyymmdd": Howard Hinnant's civil_from_days
-- (https://howardhinnant.github.io/date_algorithms.html), because the script sandbox has no os.date.
local function utc_day(epoch_seconds)
  local z = math.floor(epoch_seconds / 86400) + 719468
  local era = math.floor(z / 146097)
  local doe = z - era * 146097
  local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524) - math.floor(doe / 146096)) / 365)
  local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
  local mp = math.floor((5 * doy + 2) / 153)
  local d = doy - math.floor((153 * mp + 2) / 5) + 1
  local m = mp < 10 and mp + 3 or mp - 9
  local y = yoe + era * 400
  if m <= 2 then y = y + 1 end
  return string.format('%04d%02d%02d', y, m, d)
end

local now = tonumber(redis.call('TIME')[1])
local reset = now + 1
local window_key = KEYS[1] .. ':' .. now

local function check(limit, quota, messages, requests)
  local used = tonumber(redis.call('GET', window_key) or '0')
  if requests > 0 then
    if used + requests > limit then
      -- A refused request is not counted: the counter stays at the limit and the quota is untouched.
      return {0, 'RATE_LIMITED', limit, math.max(limit - used, 0), reset, 1, ''}
    end
    used = redis.call('INCRBY', window_key, requests)
    -- 2 s, not 1: the key must outlive its second even when TIME and the expiry clock disagree slightly.
    if used == requests then redis.call('EXPIRE', window_key, 2) end
  end
  local remaining = math.max(limit - used, 0)

  if messages > 0 and quota >= 0 then
    local day = utc_day(now)
    local day_key = KEYS[2] .. ':' .. day
    local next_midnight = (math.floor(now / 86400) + 1) * 86400
    local sent = tonumber(redis.call('GET', day_key) or '0')
    if sent + messages > quota then
      -- All or nothing: a bulk that does not fit is refused whole and counts nothing.
      return {0, 'QUOTA_EXCEEDED', limit, remaining, reset, next_midnight - now, ''}
    end
    redis.call('INCRBY', day_key, messages)
    -- An hour past midnight, so a refund for a check made just before midnight still finds its day.
    redis.call('EXPIREAT', day_key, next_midnight + 3600)
    return {1, '', limit, remaining, reset, 0, day}
  end
  return {1, '', limit, remaining, reset, 0, ''}
end

local replies = {}
for i = 0, tonumber(ARGV[1]) - 1 do
  local base = 2 + i * 4
  local reply = check(tonumber(ARGV[base]), tonumber(ARGV[base + 1]), tonumber(ARGV[base + 2]),
    tonumber(ARGV[base + 3]))
  for j = 1, 7 do replies[#replies + 1] = reply[j] end
end
return replies
