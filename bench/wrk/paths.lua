-- wrk script: sends the request paths listed in the file named by MIRROR_WRK_PATHS (one
-- per line, as `mirror bench serve --paths-out DIR` writes them), round and round, each
-- thread starting at its own place.
--
--   MIRROR_WRK_PATHS=DIR/top.txt wrk -t2 -c64 -d10s --latency -s bench/wrk/paths.lua http://127.0.0.1:8080

local paths = {}
local file = os.getenv("MIRROR_WRK_PATHS")
if file == nil then
  error("set MIRROR_WRK_PATHS to a file of request paths")
end
for line in io.lines(file) do
  if #line > 0 then
    paths[#paths + 1] = line
  end
end
if #paths == 0 then
  error("no request paths in " .. file)
end

local counter = 0
local threads = 0

function setup(thread)
  thread:set("offset", threads * 7919)
  threads = threads + 1
end

function init(args)
  counter = offset or 0
end

function request()
  counter = counter + 1
  return wrk.format("GET", paths[(counter % #paths) + 1])
end

function response(status, headers, body)
  if status ~= 200 then
    errors_seen = (errors_seen or 0) + 1
  end
end
