-- wrk script: POST the pre-signed Standard Webhooks deliveries of
-- $SIGNED_FILE (bench/gateway/signgen -scheme standard), each thread its own
-- share of the lines, so no webhook-id repeats.
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
      local id, ts, sig, body = line:match("^(%S+)\t(%d+)\t(%S+)\t(.*)$")
      reqs[#reqs + 1] = wrk.format("POST", nil, {
        ["Content-Type"] = "application/json",
        ["webhook-id"] = id,
        ["webhook-timestamp"] = ts,
        ["webhook-signature"] = sig,
      }, body)
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
