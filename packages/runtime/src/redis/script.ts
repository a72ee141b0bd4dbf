/**
 * The sync's one round trip (SPEC 23), a Lua script the store runs atomically: it records
 * this process's report, drops the processes whose lease ended, and answers the fleet's
 * totals. Dates come from the store's own `TIME`, never a process's clock. Every key it
 * writes gets a TTL; a value of the wrong shape (another project's, a tampered one) is
 * skipped and counted in `ignored`, never an error.
 *
 * KEYS: 1 the processes (a sorted set: instance -> last sync, store ms), 2 the retry budget (a
 * hash: instance -> "calls:retries"), 3 and 4 retry throttling's and the retry quota's token
 * counts (a hash: "tokens" -> the fleet's count, "i:" instance -> the sum of that process's
 * changes it last reported), then one key per fleet rate limit in the report's order (a hash:
 * "tokens" and "at", the fleet's bucket and when it was last refilled, store ms; "o:" instance
 * -> "lease:spent", the lease it holds and all it had spent at its last report), then two keys
 * per fleet breaker circuit in the report's order: its state (a hash: "state" closed or open,
 * "epoch", "gen", "opened" and "break", store ms; "o:" instance -> "attempts:failures:open" in
 * the current epoch) and its half-open probe's lease (a string: the instance holding it, set
 * NX with a PX of the lease). ARGV: 1 the report, as JSON.
 */
export const SYNC_KEYS = ["instances", "budget", "throttling", "quota"] as const;

export const SYNC_SCRIPT = `
local report = cjson.decode(ARGV[1])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease = tonumber(report.lease_ms)
if lease == nil or lease < 1 then lease = 1000 end
local ttl = math.floor(lease * 2)
local probeMs = math.floor(lease)
local id = tostring(report.instance)
local leaving = report.leave == true
local ignored = 0
local nrates = 0
if type(report.rates) == 'table' then nrates = #report.rates end
local nbreakers = 0
if type(report.breakers) == 'table' then nbreakers = #report.breakers end

if leaving then
  redis.call('ZREM', KEYS[1], id)
else
  redis.call('ZADD', KEYS[1], now, id)
end
local horizon = '(' .. tostring(now - lease)
local gone = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', horizon)
if #gone > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', horizon)
  redis.call('HDEL', KEYS[2], unpack(gone))
  for i = 1, #gone do gone[i] = 'i:' .. gone[i] end
  redis.call('HDEL', KEYS[3], unpack(gone))
  redis.call('HDEL', KEYS[4], unpack(gone))
  -- A process gone keeps its lease: the bucket refills it in time.
  for i = 1, #gone do gone[i] = 'o:' .. string.sub(gone[i], 3) end
  for k = 5, 4 + nrates do redis.call('HDEL', KEYS[k], unpack(gone)) end
  for b = 1, nbreakers do redis.call('HDEL', KEYS[3 + nrates + 2 * b], unpack(gone)) end
end
redis.call('PEXPIRE', KEYS[1], ttl)

local out = { now_ms = now, instances = redis.call('ZCARD', KEYS[1]) }

local budget = report.budget
if type(budget) == 'table' then
  if leaving then
    redis.call('HDEL', KEYS[2], id)
  else
    redis.call('HSET', KEYS[2], id, string.format('%d:%d', tonumber(budget.calls) or 0, tonumber(budget.retries) or 0))
  end
  local calls, retries = 0, 0
  local all = redis.call('HGETALL', KEYS[2])
  for i = 1, #all, 2 do
    local c, r = string.match(all[i + 1], '^(%d+):(%d+)$')
    if c == nil then
      ignored = ignored + 1
    elseif redis.call('ZSCORE', KEYS[1], all[i]) then
      calls = calls + tonumber(c)
      retries = retries + tonumber(r)
    end
  end
  out.budget = { calls = calls, retries = retries }
  redis.call('PEXPIRE', KEYS[2], ttl)
end

-- One fleet token count: the store applies what is new in this process's sum of changes since
-- its last report (a repeated report applies nothing), and keeps the count within [0, max].
-- A process the store does not know yet (new, or its lease ended) starts from its sum now.
local function tokens(key, r)
  if type(r) ~= 'table' then return nil end
  local net, max = tonumber(r.net), tonumber(r.max)
  if net == nil or max == nil or max <= 0 then return nil end
  local field = 'i:' .. id
  local raw = redis.call('HGET', key, 'tokens')
  local count = tonumber(raw)
  if count == nil then
    if raw then ignored = ignored + 1 end
    redis.call('DEL', key)
    count = max
  else
    local last = tonumber(redis.call('HGET', key, field))
    if last ~= nil then count = math.min(max, math.max(0, count + net - last)) end
  end
  if leaving then redis.call('HDEL', key, field) else redis.call('HSET', key, field, tostring(net)) end
  redis.call('HSET', key, 'tokens', tostring(count))
  redis.call('PEXPIRE', key, ttl)
  return { tokens = count }
end
out.throttling = tokens(KEYS[3], report.throttling)
out.quota = tokens(KEYS[4], report.quota)

-- Rate limits shared by leases: refill the fleet's bucket by the store's clock, charge what the
-- process spent since its last report against the lease it held and take the rest back, then
-- lease it up to what it wants. A process the store does not know yet starts from its sum now.
local function lease(key, r)
  if type(r) ~= 'table' then return nil end
  local spent, want, cap = tonumber(r.spent), tonumber(r.want), tonumber(r.capacity)
  local requests, per = tonumber(r.requests), tonumber(r.per_ms)
  if spent == nil or want == nil or cap == nil or requests == nil or per == nil or cap <= 0 or requests <= 0 or per <= 0 then return nil end
  local field = 'o:' .. id
  local tokens, at = tonumber(redis.call('HGET', key, 'tokens')), tonumber(redis.call('HGET', key, 'at'))
  if tokens == nil or at == nil then
    if redis.call('EXISTS', key) == 1 then ignored = ignored + 1 end
    redis.call('DEL', key)
    tokens, at = cap, now
  end
  if now > at then tokens = math.min(cap, tokens + (now - at) * requests / per) end
  local held = redis.call('HGET', key, field)
  if held then
    local out, last = string.match(held, '^(-?[%d.]+):(-?[%d.]+)$')
    if out == nil then ignored = ignored + 1 else tokens = math.min(cap, tokens + tonumber(out) - (spent - tonumber(last))) end
  end
  local grant = 0
  if leaving then
    redis.call('HDEL', key, field)
  else
    grant = math.max(0, math.min(math.floor(tokens), want))
    tokens = tokens - grant
    redis.call('HSET', key, field, tostring(grant) .. ':' .. tostring(spent))
  end
  redis.call('HSET', key, 'tokens', tostring(tokens), 'at', tostring(now))
  redis.call('PEXPIRE', key, math.max(ttl, math.ceil(per * 2)))
  return { name = tostring(r.name), grant = grant, tokens = tokens }
end
if nrates > 0 then
  local rates = {}
  for i = 1, nrates do
    rates[i] = lease(KEYS[4 + i], report.rates[i]) or { name = tostring(report.rates[i].name), grant = -1, tokens = 0 }
  end
  out.rates = rates
end

-- A fleet breaker: the store sums the processes' windows of the current epoch and opens the
-- breaker for all of them when the sum crosses the threshold and the quorum; half-open, one
-- process wins the probe's lease; its result closes the breaker (a new epoch: every window
-- starts again) or opens it again (the break doubled up to max_break_ms).
local function breaker(key, pkey, r)
  if type(r) ~= 'table' then return nil end
  local a, f, ep = tonumber(r.attempts), tonumber(r.failures), tonumber(r.epoch)
  local ratio, minimum, quorum, brk = tonumber(r.ratio), tonumber(r.minimum), tonumber(r.quorum), tonumber(r.break_ms)
  local maxbrk = tonumber(r.max_break_ms)
  if a == nil or f == nil or ep == nil or ratio == nil or minimum == nil or quorum == nil or brk == nil or a < 0 or f < 0 or brk <= 0 then return nil end
  local h = redis.call('HMGET', key, 'state', 'epoch', 'gen', 'opened', 'break')
  local state, epoch, gen, opened, cur = h[1], tonumber(h[2]), tonumber(h[3]), tonumber(h[4]), tonumber(h[5])
  if (state ~= 'closed' and state ~= 'open') or epoch == nil or gen == nil or opened == nil or cur == nil then
    if redis.call('EXISTS', key) == 1 then ignored = ignored + 1 end
    redis.call('DEL', key)
    state, epoch, gen, opened, cur = 'closed', 0, 0, 0, brk
  end
  local field = 'o:' .. id
  local open = 0
  if r.open == true then open = 1 end
  if leaving then
    redis.call('HDEL', key, field)
  elseif ep == epoch then
    redis.call('HSET', key, field, string.format('%d:%d:%d', a, f, open))
  else
    redis.call('HSET', key, field, string.format('0:0:%d', open))
  end
  local sa, sf, parts, cross = 0, 0, 0, 0
  local all = redis.call('HGETALL', key)
  for i = 1, #all, 2 do
    if string.sub(all[i], 1, 2) == 'o:' then
      local x, y = string.match(all[i + 1], '^(%d+):(%d+):[01]$')
      if x == nil then
        ignored = ignored + 1
      elseif redis.call('ZSCORE', KEYS[1], string.sub(all[i], 3)) then
        x, y = tonumber(x), tonumber(y)
        sa, sf = sa + x, sf + y
        if x > 0 then
          parts = parts + 1
          if y > 0 and y >= ratio * x then cross = cross + 1 end
        end
      end
    end
  end
  local probe = false
  if state == 'closed' then
    if sa >= minimum and sf > 0 and sf >= ratio * sa and cross >= quorum * parts then
      state, opened, gen, cur = 'open', now, gen + 1, brk
    end
  elseif now >= opened + cur then
    local holder = redis.call('GET', pkey)
    local mine = holder == false or holder == id
    if r.probe == 'passed' and mine then
      state, epoch, gen, cur = 'closed', epoch + 1, gen + 1, brk
      redis.call('DEL', pkey)
      local fields = {}
      for i = 1, #all, 2 do
        if string.sub(all[i], 1, 2) == 'o:' then fields[#fields + 1] = all[i] end
      end
      if #fields > 0 then redis.call('HDEL', key, unpack(fields)) end
      sa, sf, parts, cross = 0, 0, 0, 0
    elseif r.probe == 'failed' and mine then
      if maxbrk ~= nil then cur = math.min(maxbrk, cur * 2) end
      state, opened, gen = 'open', now, gen + 1
      redis.call('DEL', pkey)
    elseif r.probe == 'want' and not leaving then
      probe = holder == id or redis.call('SET', pkey, id, 'NX', 'PX', probeMs) ~= false
    end
  end
  redis.call('HSET', key, 'state', state, 'epoch', epoch, 'gen', gen, 'opened', opened, 'break', cur)
  redis.call('PEXPIRE', key, ttl + cur)
  local shown, left = state, 0
  if state == 'open' then
    left = math.max(0, opened + cur - now)
    if left == 0 then shown = 'half_open' end
  end
  return { name = tostring(r.name), state = shown, epoch = epoch, gen = gen, left_ms = left, break_ms = cur, probe = probe,
    attempts = sa, failures = sf, processes = parts, crossing = cross }
end
if nbreakers > 0 then
  local breakers = {}
  for b = 1, nbreakers do
    breakers[b] = breaker(KEYS[3 + nrates + 2 * b], KEYS[4 + nrates + 2 * b], report.breakers[b]) or { name = tostring(report.breakers[b].name), state = 'invalid' }
  end
  out.breakers = breakers
end

out.ignored = ignored
return cjson.encode(out)
`;
