-- Sends of OTPs to one phone by one account in a sliding window (docs/otp.md#limits: 5 per 10 minutes),
-- decided atomically on the Redis clock. A sorted set of send tokens scored by time in ms.
--
-- KEYS[1]  <prefix>:otp-sends:{<account>:<phone>}
-- ARGV[1]  sends allowed per window   ARGV[2] window in ms   ARGV[3] this send's token (unique)
-- Returns  {allowed 0|1, sends in the window, retry-after s (0 when allowed)}
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
if count >= limit then
  -- The window frees a slot when its oldest send leaves it.
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  local retry = math.ceil((tonumber(oldest[2]) + window - now) / 1000)
  return {0, count, math.max(retry, 1)}
end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], window)
return {1, count + 1, 0}
