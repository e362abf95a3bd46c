-- Mark one event of one patient as processed; refreshes the patient's retention TTL.
-- KEYS: 1 memo, 2 budget, 3 spends, 4 events.  ARGV: 1 event key, 2 ttl seconds (0 = forever).
-- Returns 1 the first time the event is marked, 0 after.
local added = redis.call('SADD', KEYS[4], ARGV[1])
local ttl = tonumber(ARGV[2])
if ttl > 0 then
  for _, key in ipairs(KEYS) do redis.call('EXPIRE', key, ttl) end
end
return added
