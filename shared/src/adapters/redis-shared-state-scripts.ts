/**
 * Lua scripts of the Redis SharedState. Each runs atomically on the server, so replicas never
 * interleave a read with the write that depends on it. Times come from the Redis clock (TIME),
 * so replicas with skewed clocks still agree on rate-limit windows.
 */

/** KEYS[1] counter; ARGV amount, ttlSeconds (0 = none). The TTL is set only when the key is created. */
export const INCREMENT_BY = `
local existed = redis.call('EXISTS', KEYS[1]) == 1
local total = redis.call('INCRBY', KEYS[1], ARGV[1])
local ttl = tonumber(ARGV[2])
if not existed and ttl > 0 then redis.call('EXPIRE', KEYS[1], ttl) end
return total
`;

/**
 * KEYS[1] counter; ARGV amount, limit, ttlSeconds, onlyIfExists (1|0). Returns {granted 0|1, total},
 * or {-1, 0} when onlyIfExists and the counter is absent.
 */
export const RESERVE = `
if ARGV[4] == '1' and redis.call('EXISTS', KEYS[1]) == 0 then return {-1, 0} end
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local amount = tonumber(ARGV[1])
if current + amount > tonumber(ARGV[2]) then return {0, current} end
local existed = redis.call('EXISTS', KEYS[1]) == 1
local total = redis.call('INCRBY', KEYS[1], amount)
local ttl = tonumber(ARGV[3])
if not existed and ttl > 0 then redis.call('EXPIRE', KEYS[1], ttl) end
return {1, total}
`;

/** KEYS[1] counter; ARGV value, ttlSeconds. Creates the counter unless it exists; returns {created 0|1, total}. */
export const SET_IF_ABSENT = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'EX', ARGV[2]) then return {1, tonumber(ARGV[1])} end
return {0, tonumber(redis.call('GET', KEYS[1]))}
`;

/** KEYS[1] counter; ARGV amount. Floors at 0 and keeps the TTL; an absent counter stays absent. */
export const RELEASE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local total = redis.call('DECRBY', KEYS[1], ARGV[1])
if total < 0 then
  redis.call('SET', KEYS[1], 0, 'KEEPTTL')
  total = 0
end
return total
`;

/**
 * windowHit(log, sum, now, windowMs, limit, weight, nonce) -> allowed 0|1, remaining, resetMs: one
 * hit of a sliding window. log: a sorted set (score = time ms, member = "<nonce>:<weight>"); sum:
 * the weights in the log.
 */
const WINDOW_HIT = `
local function weightOf(member) return tonumber(string.match(member, ':(%d+)$')) end

local function windowHit(log, sum, now, window, limit, weight, nonce)
  local expired = redis.call('ZRANGEBYSCORE', log, '-inf', now - window)
  if #expired > 0 then
    local gone = 0
    for _, member in ipairs(expired) do gone = gone + weightOf(member) end
    redis.call('ZREMRANGEBYSCORE', log, '-inf', now - window)
    redis.call('DECRBY', sum, gone)
  end
  local used = tonumber(redis.call('GET', sum) or '0')
  local allowed = used + weight <= limit
  if allowed then
    redis.call('ZADD', log, now, nonce .. ':' .. weight)
    used = redis.call('INCRBY', sum, weight)
  end
  if used > 0 then
    redis.call('PEXPIRE', log, window)
    redis.call('PEXPIRE', sum, window)
  end

  -- Only the oldest hits are read: all of them when allowed would be O(window) per call.
  local reset = 0
  if allowed then
    local oldest = redis.call('ZRANGE', log, 0, 0, 'WITHSCORES')
    if #oldest > 0 then reset = tonumber(oldest[2]) + window - now end
  else
    local needed = used + weight - limit
    local freed = 0
    local from = 0
    local done = false
    while not done do
      local hits = redis.call('ZRANGE', log, from, from + 99, 'WITHSCORES')
      if #hits == 0 then break end
      if from == 0 then reset = window end -- heavier than what the window holds: it never fits
      for i = 1, #hits, 2 do
        freed = freed + weightOf(hits[i])
        if freed >= needed then
          reset = tonumber(hits[i + 1]) + window - now
          done = true
          break
        end
      end
      from = from + 100
    end
  end
  local remaining = limit - used
  if remaining < 0 then remaining = 0 end
  return allowed and 1 or 0, remaining, reset
end

local function nowMs()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
`;

/** KEYS[1] log, KEYS[2] sum (see WINDOW_HIT); ARGV windowMs, limit, weight, nonce. Returns {allowed 0|1, remaining, resetMs}. */
export const SLIDING_WINDOW_HIT = `${WINDOW_HIT}
local allowed, remaining, reset = windowHit(KEYS[1], KEYS[2], nowMs(), tonumber(ARGV[1]),
  tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4])
return {allowed, remaining, reset}
`;

/**
 * A call's admission. KEYS: each hit's log and sum, then each reservation's counter. ARGV[1] the
 * number of hits, ARGV[2] a nonce; then per hit windowMs, limit, weight; then per reservation
 * amount, limit, ttlSeconds (0 = none), onlyIfExists (1|0). Returns per hit tried {allowed,
 * remaining, resetMs} (the first refused one ends the list), then, when all were allowed, per
 * reservation {granted 1|0|-1 (missing), total}; made all together or not at all.
 */
export const ADMIT = `${WINDOW_HIT}
local hits = tonumber(ARGV[1])
local now = nowMs()
local out = {}
local a = 3
for i = 1, hits do
  local allowed, remaining, reset = windowHit(KEYS[2 * i - 1], KEYS[2 * i], now,
    tonumber(ARGV[a]), tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), ARGV[2] .. '-' .. i)
  out[#out + 1] = allowed
  out[#out + 1] = remaining
  out[#out + 1] = reset
  if allowed == 0 then return out end
  a = a + 3
end
local first = #out
local fit = true
for k = 2 * hits + 1, #KEYS do
  local exists = redis.call('EXISTS', KEYS[k]) == 1
  local current = tonumber(redis.call('GET', KEYS[k]) or '0')
  if ARGV[a + 3] == '1' and not exists then
    out[#out + 1] = -1
    out[#out + 1] = 0
    fit = false
  elseif current + tonumber(ARGV[a]) > tonumber(ARGV[a + 1]) then
    out[#out + 1] = 0
    out[#out + 1] = current
    fit = false
  else
    out[#out + 1] = 1
    out[#out + 1] = current
  end
  a = a + 4
end
if not fit then
  for j = first + 1, #out, 2 do if out[j] == 1 then out[j] = 0 end end
  return out
end
a = 3 + 3 * hits
local j = first + 2
for k = 2 * hits + 1, #KEYS do
  local existed = redis.call('EXISTS', KEYS[k]) == 1
  out[j] = redis.call('INCRBY', KEYS[k], ARGV[a])
  local ttl = tonumber(ARGV[a + 2])
  if not existed and ttl > 0 then redis.call('EXPIRE', KEYS[k], ttl) end
  a = a + 4
  j = j + 2
end
return out
`;

/**
 * KEYS: counters; ARGV per counter amount, ttlSeconds (0 = none), onlyIfExists (1|0). Adds a
 * positive amount (creates the counter with the TTL, unless onlyIfExists), gives back a negative
 * one (floor 0; an absent counter stays absent). Returns each total after (0 for one left absent).
 */
export const ADJUST = `
local out = {}
for k = 1, #KEYS do
  local a = 3 * k - 2
  local amount = tonumber(ARGV[a])
  local exists = redis.call('EXISTS', KEYS[k]) == 1
  local total = 0
  if amount > 0 and (exists or ARGV[a + 2] ~= '1') then
    total = redis.call('INCRBY', KEYS[k], amount)
    local ttl = tonumber(ARGV[a + 1])
    if not exists and ttl > 0 then redis.call('EXPIRE', KEYS[k], ttl) end
  elseif exists then
    total = redis.call('DECRBY', KEYS[k], -amount)
    if total < 0 then
      redis.call('SET', KEYS[k], 0, 'KEEPTTL')
      total = 0
    end
  end
  out[k] = total
end
return out
`;

/** KEYS[1] lock; ARGV token. Deletes only the holder's own lock. */
export const RELEASE_LOCK = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/** KEYS[1] lock; ARGV token, ttlMs. Renews only the holder's own lock. */
export const EXTEND_LOCK = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`;

/** KEYS[1] key; ARGV value, ttlSeconds. Returns the existing value, or nil after storing value. */
export const REMEMBER = `
local existing = redis.call('GET', KEYS[1])
if existing then return existing end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return false
`;
