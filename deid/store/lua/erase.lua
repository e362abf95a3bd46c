-- Erase every key of one patient. KEYS: 1 memo, 2 budget, 3 spends, 4 events.
-- Returns the number of entries removed (memo fields + spend ids + event marks + the budget).
local n = redis.call('HLEN', KEYS[1]) + redis.call('EXISTS', KEYS[2])
  + redis.call('HLEN', KEYS[3]) + redis.call('SCARD', KEYS[4])
redis.call('UNLINK', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
return n
