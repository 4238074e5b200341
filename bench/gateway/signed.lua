-- wrk script: POST the pre-signed deliveries of $SIGNED_FILE (bench/gateway/signgen),
-- each thread its own share of the lines, so no token repeats: sluice lines
-- (timestamp, signature, body) or Standard Webhooks lines (id, timestamp,
-- signature, body).
local threads = 0

function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end

local reqs = {}
local next = 1

function init(args)
  local path = os.getenv("SIGNED_FILE")
  local nth = tonumber(os.getenv("WRK_THREADS") or "2")
  local i = 0
  for line in io.lines(path) do
    if i % nth == tid - 1 then
      local id, sts, ssig, sbody = line:match("^(msg_%S+)\t(%d+)\t(%S+)\t(.*)$")
      if id then
        reqs[#reqs + 1] = wrk.format("POST", nil, {
          ["Content-Type"] = "application/json",
          ["webhook-id"] = id,
          ["webhook-timestamp"] = sts,
          ["webhook-signature"] = ssig,
        }, sbody)
      else
        local ts, sig, body = line:match("^(%d+)\t(%S+)\t(.*)$")
        reqs[#reqs + 1] = wrk.format("POST", nil, {
          ["Content-Type"] = "application/json",
          ["X-Sluice-Timestamp"] = ts,
          ["X-Sluice-Signature"] = sig,
        }, body)
      end
    end
    i = i + 1
  end
end

function request()
  local r = reqs[next]
  next = next + 1
  if next > #reqs then next = 1 end
  return r
end
