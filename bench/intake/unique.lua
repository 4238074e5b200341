-- wrk script: POST provider-shaped webhooks, each with a unique token (and
-- a unique object, so none supersedes another). Threads are numbered in
-- setup() so tokens never collide across threads or runs.
local counter = 0
local threads = 0
local run = os.time()

function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end

function init(args)
  counter = 0
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
end

function request()
  counter = counter + 1
  local id = string.format("%d-%d-%d", run, tid, counter)
  local body = '{"token":"wbh-' .. id .. '","type":"USERS.UPDATED.STATUS.ACTIVATED",' ..
    '"createdOn":"2024-05-01T10:00:00.000Z","object":{"token":"usr-' .. id .. '",' ..
    '"programToken":"prg-bench","status":"ACTIVATED","country":"FR"}}'
  return wrk.format(nil, nil, nil, body)
end
