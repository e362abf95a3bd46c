-- Atomic commit of one batch of one patient (protocol in deid/store/base.py).
-- KEYS: 1 memo (hash value-key -> surrogate), 2 budget (integer micro-epsilon),
--       3 spends (hash spend id -> "<spent>:<total>" of its first granted commit),
--       4 events (set of processed-event marks).
-- ARGV: 1 cap_micro, 2 spend_id, 3 ttl seconds (0 = keep forever),
--       then one triple per release: value-key, surrogate, cost_micro.
-- Returns {granted, spent_now, total, replay, {surrogate or false per release, in order},
--          recorded spent, recorded total}.
local memo, budget, spends = KEYS[1], KEYS[2], KEYS[3]
local cap = tonumber(ARGV[1])
local spend_id = ARGV[2]
local ttl = tonumber(ARGV[3])
local n = (#ARGV - 3) / 3

local recorded = redis.call('HGET', spends, spend_id)
local replay = recorded ~= false

-- Cost of the distinct values still absent; a value listed twice is charged once (its last cost).
local costs, order = {}, {}
for i = 0, n - 1 do
  local k = ARGV[4 + 3 * i]
  if costs[k] == nil then order[#order + 1] = k end
  costs[k] = tonumber(ARGV[6 + 3 * i])
end
local cost = 0
for _, k in ipairs(order) do
  if costs[k] > 0 and redis.call('HEXISTS', memo, k) == 0 then cost = cost + costs[k] end
end

local total = tonumber(redis.call('GET', budget) or '0')
local granted = replay or cost == 0 or total + cost <= cap
local spent_now = 0
local rec_spent, rec_total = 0, total
if replay then
  local sep = string.find(recorded, ':', 1, true)
  rec_spent = tonumber(string.sub(recorded, 1, sep - 1))
  rec_total = tonumber(string.sub(recorded, sep + 1))
elseif granted then
  if cost > 0 then
    total = redis.call('INCRBY', budget, cost)
    spent_now = cost
  end
  rec_spent, rec_total = spent_now, total
  redis.call('HSETNX', spends, spend_id, string.format('%d:%d', spent_now, total))
end

-- Get-or-create: an existing entry wins, so racing writers converge on the first surrogate.
local out = {}
for i = 0, n - 1 do
  local k = ARGV[4 + 3 * i]
  local existing = redis.call('HGET', memo, k)
  if existing then
    out[i + 1] = existing
  elseif tonumber(ARGV[6 + 3 * i]) > 0 and not granted then
    out[i + 1] = false
  else
    redis.call('HSETNX', memo, k, ARGV[5 + 3 * i])
    out[i + 1] = ARGV[5 + 3 * i]
  end
end

if ttl > 0 then
  for _, key in ipairs(KEYS) do redis.call('EXPIRE', key, ttl) end
end
return {granted and 1 or 0, spent_now, total, replay and 1 or 0, out, rec_spent, rec_total}
