-- Erase every key of one patient. KEYS: 1 memo, 2 budget, 3 spends, 4 events, 5 timeline.
-- Returns the number of entries removed (memo fields + spend ids + event marks + timeline points
-- + the budget).
local n = redis.call('HLEN', KEYS[1]) + redis.call('EXISTS', KEYS[2])
  + redis.call('HLEN', KEYS[3]) + redis.call('SCARD', KEYS[4]) + redis.call('HLEN', KEYS[5])
redis.call('UNLINK', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5])
return n
