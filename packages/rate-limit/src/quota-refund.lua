-- Gives messages back to one account's daily quota (rate-limiter.ts refund()).
-- KEYS[1] <prefix>:rl:{<account>}:day:<yyyymmdd>   ARGV[1] messages to give back
-- Returns the messages still counted for that day.
-- A day whose counter has expired has nothing to give back, and the count never goes
-- below zero: a refund without a matching check must not raise the day's allowance.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local left = redis.call('DECRBY', KEYS[1], ARGV[1])
if left < 0 then
  redis.call('SET', KEYS[1], 0, 'KEEPTTL')
  left = 0
end
return left
