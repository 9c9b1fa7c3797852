-- wrk script for bench/load/run.sh. MODE=search|ingest|mixed (mixed: 1 ingest per 10 requests).
-- Env: ONTOMEM_KEY (Bearer key), USERS (seeded users "u0".."u<n-1>"), K (hits per search).
local key = os.getenv("ONTOMEM_KEY")
local mode = os.getenv("MODE") or "search"
local users = tonumber(os.getenv("USERS") or "10")
local k = tonumber(os.getenv("K") or "10")

local queries = {
  "what movie should I watch tonight", "what does she like to eat", "where did they travel last summer",
  "who is her favourite singer", "what sport does he play on weekends", "is anyone allergic to nuts",
  "what did my sister say about the wedding", "which book was she reading", "how is work going lately",
  "does he have a dog or a cat", "what music do they listen to", "what did we cook for dinner",
  "when is the concert", "what is his job", "where does she want to go on vacation",
  "what games do the kids play", "any plans for the holiday", "how was the trip to japan",
  "what is her favourite restaurant", "did he start running again", "what painting did she finish",
  "who visited the museum", "what happened at the office meeting", "which team does he support",
  "what does the doctor recommend", "what did they buy for the new house", "is she learning piano",
  "favourite dessert", "pets", "hiking in the mountains", "coffee or tea", "birthday party ideas",
}
local words = {"pizza", "hiking", "concert", "novel", "puppy", "beach", "guitar", "soccer", "museum",
               "sushi", "garden", "marathon", "painting", "flight", "recipe", "movie", "yoga", "coffee"}

local threads = 0
function setup(thread)
  thread:set("tid", threads)
  threads = threads + 1
end

local n = 0
function init(args)
  n = tid * 7919
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
  wrk.headers["Authorization"] = "Bearer " .. key
end

local function search()
  local q = queries[(n * 31) % #queries + 1]
  local body = '{"query":"' .. q .. '","k":' .. k .. ',"asker":"Ana"}'
  return wrk.format(nil, "/v1/users/u" .. (n % users) .. "/search", nil, body)
end

local function ingest()
  local w = words[(n * 7) % #words + 1]
  local body = string.format(
    '{"turns":[{"id":"load-%d-%d","speaker":"Ana","text":"I really enjoyed the %s with my friends today (%d)"}]}',
    tid, n, w, n)
  return wrk.format(nil, "/v1/users/u" .. (n % users) .. "/turns", nil, body)
end

function request()
  n = n + 1
  if mode == "ingest" or (mode == "mixed" and n % 10 == 0) then return ingest() end
  return search()
end

-- One parsable line: requests, rate, latency percentiles (ms), errors (non-2xx + socket errors).
function done(summary, latency, requests)
  local s = summary.duration / 1e6
  local e = summary.errors
  io.write(string.format(
    "RESULT mode=%s requests=%d seconds=%.1f rps=%.0f p50_ms=%.2f p95_ms=%.2f p99_ms=%.2f max_ms=%.2f non2xx=%d socket_errors=%d\n",
    mode, summary.requests, s, summary.requests / s, latency:percentile(50) / 1000,
    latency:percentile(95) / 1000, latency:percentile(99) / 1000, latency.max / 1000, e.status,
    e.connect + e.read + e.write + e.timeout))
end
