-- OTP pumping guard: sends and verifications of OTPs by one account to one destination prefix,
-- in 10-minute buckets over the last hour, decided atomically on the Redis clock.
--
-- KEYS[1]  <prefix>:otp-pumping:{<account>}:<destination prefix>  (a hash: s:<bucket>, v:<bucket>)
-- ARGV[1]  "send" | "verified" | "release"
-- ARGV[2]  sends in the hour from which the ratio is judged (0: never refuse)
-- ARGV[3]  least verified share, in percent
-- ARGV[4]  for "release": the bucket the send was counted in
-- Returns  {allowed 0|1, sends in the hour, verified in the hour, bucket}
local BUCKET_MS = 600000
local BUCKETS = 6
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local bucket = math.floor(now / BUCKET_MS)
local action = ARGV[1]
if action == 'release' then
  redis.call('HINCRBY', KEYS[1], 's:' .. ARGV[4], -1)
  return {1, 0, 0, tonumber(ARGV[4])}
end
if action == 'verified' then
  redis.call('HINCRBY', KEYS[1], 'v:' .. bucket, 1)
  redis.call('PEXPIRE', KEYS[1], BUCKET_MS * (BUCKETS + 1))
  return {1, 0, 0, bucket}
end
local sends, verified = 0, 0
local fields = redis.call('HGETALL', KEYS[1])
for i = 1, #fields, 2 do
  local kind, at = string.match(fields[i], '^(%a):(%d+)$')
  at = tonumber(at)
  if at == nil or at <= bucket - BUCKETS then
    redis.call('HDEL', KEYS[1], fields[i])
  elseif kind == 's' then
    sends = sends + tonumber(fields[i + 1])
  else
    verified = verified + tonumber(fields[i + 1])
  end
end
local minSends = tonumber(ARGV[2])
if minSends > 0 and sends >= minSends and verified * 100 < sends * tonumber(ARGV[3]) then
  return {0, sends, verified, bucket}
end
redis.call('HINCRBY', KEYS[1], 's:' .. bucket, 1)
redis.call('PEXPIRE', KEYS[1], BUCKET_MS * (BUCKETS + 1))
return {1, sends + 1, verified, bucket}
