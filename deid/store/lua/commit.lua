-- Atomic commit of one note of one patient (protocol in deid/store/base.py).
-- KEYS: 1 memo (hash value-key -> surrogate), 2 budget (integer micro-epsilon),
--       3 spends (hash spend id -> "<spent>:<total>:<attempt>" of its first granted commit),
--       4 events (set of processed-event marks), 5 timeline (hash value-key -> sealed point).
-- ARGV: 1 cap_micro, 2 spend_id, 3 ttl seconds (0 = keep forever), 4 attempt token (random per
--       commit call, the same across that call's retries; "" if none),
--       then one quadruple per release: value-key, surrogate, cost_micro, timeline point ("" if none).
-- Returns {granted, spent_now, total, replay, {surrogate or false per release, in order},
--          recorded spent, recorded total}.
local memo, budget, spends, timeline = KEYS[1], KEYS[2], KEYS[3], KEYS[5]
local cap = tonumber(ARGV[1])
local spend_id = ARGV[2]
local ttl = tonumber(ARGV[3])
local attempt = ARGV[4]
local B = 4  -- arguments before the first release
local n = (#ARGV - B) / 4

local recorded = redis.call('HGET', spends, spend_id)
local replay = recorded ~= false
local rec_first_spent, rec_first_total, rec_attempt
if replay then
  local a = string.find(recorded, ':', 1, true)
  local b = string.find(recorded, ':', a + 1, true)
  rec_first_spent = tonumber(string.sub(recorded, 1, a - 1))
  rec_first_total = tonumber(string.sub(recorded, a + 1, (b or 0) - 1))
  rec_attempt = b and string.sub(recorded, b + 1) or ''
end
-- This very call applied before and lost its reply (a retry after a dropped connection): it is
-- the first commit, not a replay; it reports what it charged then, and charges nothing now.
if replay and attempt ~= '' and rec_attempt == attempt then
  return {1, rec_first_spent, rec_first_total, 0, (function()
    local out = {}
    for i = 0, n - 1 do out[i + 1] = redis.call('HGET', memo, ARGV[B + 1 + 4 * i]) end
    return out
  end)(), rec_first_spent, rec_first_total}
end

-- Cost of the distinct values still absent; a value listed twice is charged once (its last cost).
local costs, order = {}, {}
for i = 0, n - 1 do
  local k = ARGV[B + 1 + 4 * i]
  if costs[k] == nil then order[#order + 1] = k end
  costs[k] = tonumber(ARGV[B + 3 + 4 * i])
end
local cost = 0
for _, k in ipairs(order) do
  if costs[k] > 0 and redis.call('HEXISTS', memo, k) == 0 then cost = cost + costs[k] end
end

-- A replay is no free pass: what its first delivery did not pay for is charged, or refused.
local total = tonumber(redis.call('GET', budget) or '0')
local granted = cost == 0 or total + cost <= cap
local spent_now = 0
if granted and cost > 0 then
  total = redis.call('INCRBY', budget, cost)
  spent_now = cost
end
local rec_spent, rec_total = spent_now, total
if replay and spent_now == 0 then
  -- a replay that paid for nothing new reports its first account (byte-identical output)
  rec_spent, rec_total = rec_first_spent, rec_first_total
elseif granted and not replay then
  redis.call('HSETNX', spends, spend_id, string.format('%d:%d:%s', spent_now, total, attempt))
end

-- Get-or-create: an existing entry wins, so racing writers converge on the first surrogate.
local out = {}
for i = 0, n - 1 do
  local k = ARGV[B + 1 + 4 * i]
  local existing = redis.call('HGET', memo, k)
  if existing then
    out[i + 1] = existing
  elseif tonumber(ARGV[B + 3 + 4 * i]) > 0 and not granted then
    out[i + 1] = false
  else
    redis.call('HSETNX', memo, k, ARGV[B + 2 + 4 * i])
    if ARGV[B + 4 + 4 * i] ~= '' then redis.call('HSETNX', timeline, k, ARGV[B + 4 + 4 * i]) end
    out[i + 1] = ARGV[B + 2 + 4 * i]
  end
end

if ttl > 0 then
  for _, key in ipairs(KEYS) do redis.call('EXPIRE', key, ttl) end
end
return {granted and 1 or 0, spent_now, total, replay and 1 or 0, out, rec_spent, rec_total}
