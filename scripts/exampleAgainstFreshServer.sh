#!/usr/bin/env bash
# CI: runs the quickstart example against a fresh server, then the same flow through Stoplight
# Prism (npm run contract:prism). Starts `npm start` — the compiled server, dist/src/server.js,
# built first when dist/ is missing or older than a source — on an empty embedded data directory and a free
# loopback port, waits for /readyz (ready, not only alive), makes two accounts with an entity each with the admin CLI (one
# per run, so that both runs take the first-time path: the reader is created, not found), runs
# `npm run example`, `npm run example:csv` and `npm run contract:prism`, and always stops the server and removes the data
# directory. Between the examples and Prism, @modelcontextprotocol/inspector-cli lists the MCP
# tools at /mcp and calls listPasses with the first account's key. The first account gets development Apple credentials (npm run admin -- apple
# dev-certificate), so that the example downloads a signed pass and verifies it. Exits non-zero
# when any step fails; the server's log tail is printed then.
#
# Before the server, a fake APNs starts (scripts/fakeApnsServer.ts: HTTP/2 + TLS on loopback); the
# server gets APNS_URL pointing at it and trusts its certificate through NODE_EXTRA_CA_CERTS (the
# server only). The example gets FAKE_APNS_PUSHES, the file where the fake appends every push, so
# that its simulated iPhone registers for the pass, sees the push after a loyalty change, and
# fetches the updated pass. The fake is stopped at the end too.
#
# The server runs with VALIDATE_RESPONSES off, as in production: Prism, not the server's own
# validator, is what judges the responses.
set -euo pipefail
cd "$(dirname "$0")/.."
# Hermetic: the embedded database in the fresh directory, its generated admin token, and the
# entity the example finds for itself.
unset DATABASE_URL ADMIN_TOKEN ENTITY_ID

# npm start runs dist/: build it when it is missing or older than any source it is made from.
if [ ! -f dist/.tsbuildinfo ] || [ -n "$(find src generated -newer dist/.tsbuildinfo -print -quit)" ]; then
  echo "Building dist/ (npm run build)"
  npm run -s build
fi

data_dir=$(mktemp -d)
server_log="$data_dir/server.log"
port=$(node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });')
base_url="http://127.0.0.1:$port"
server_pid=
apns_pid=
apns_dir="$data_dir/fake-apns"
apns_log="$data_dir/fake-apns.log"
pushes_file="$apns_dir/pushes.jsonl"

# Stops a process group started with setsid: SIGTERM, then SIGKILL after 10 s.
stop_group() {
  local pid=$1
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM -- "-$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL -- "-$pid" 2>/dev/null || true
  fi
}

cleanup() {
  local status=$?
  # npm start runs npm → sh → node in the server's own process group: stop all of it.
  stop_group "$server_pid"
  stop_group "$apns_pid"
  if [ "$status" -ne 0 ] && [ -f "$server_log" ]; then
    echo "--- last lines of the server log ---" >&2
    tail -n 40 "$server_log" >&2
  fi
  if [ "$status" -ne 0 ] && [ -f "$apns_log" ]; then
    echo "--- the fake APNs's log ---" >&2
    tail -n 20 "$apns_log" >&2
  fi
  rm -rf "$data_dir"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "Starting a fake APNs"
FAKE_APNS_DIR="$apns_dir" FAKE_APNS_PUSHES="$pushes_file" setsid node_modules/.bin/tsx scripts/fakeApnsServer.ts >"$apns_log" 2>&1 &
apns_pid=$!
for _ in $(seq 1 60); do
  [ -f "$apns_dir/url" ] && break
  kill -0 "$apns_pid" 2>/dev/null || { echo "The fake APNs exited during start-up." >&2; exit 1; }
  sleep 0.5
done
[ -f "$apns_dir/url" ] || { echo "The fake APNs did not start within 30 s." >&2; exit 1; }
apns_url=$(cat "$apns_dir/url")
echo "Fake APNs on $apns_url"

echo "Starting the server on $base_url (DATA_DIR=$data_dir)"
DATA_DIR="$data_dir" PORT="$port" HOST=127.0.0.1 APNS_URL="$apns_url" NODE_EXTRA_CA_CERTS="$apns_dir/ca.pem" \
  setsid npm start >"$server_log" 2>&1 &
server_pid=$!
for _ in $(seq 1 120); do
  curl -sf "$base_url/readyz" >/dev/null && break
  kill -0 "$server_pid" 2>/dev/null || { echo "The server exited during start-up." >&2; exit 1; }
  sleep 0.5
done
curl -sf "$base_url/readyz" >/dev/null || { echo "The server was not ready (/readyz) within 60 s." >&2; exit 1; }

# Creates an account named "$1" with one entity; sets account_token and account_id.
new_account() {
  local created
  created=$(ADMIN_URL="$base_url" DATA_DIR="$data_dir" npm run -s admin -- account create --name "$1" --json)
  account_token=$(node -p 'JSON.parse(process.argv[1]).token' "$created")
  account_id=$(node -p 'JSON.parse(process.argv[1]).account.id' "$created")
  ADMIN_URL="$base_url" DATA_DIR="$data_dir" npm run -s admin -- entity create --account "$account_id" --name "$1 shop" --json >/dev/null
  echo "Account \"$1\" ($account_id) created with an entity"
}

new_account "Quickstart"
# Throw-away Apple credentials, so that the example downloads a signed pass and checks it.
ADMIN_URL="$base_url" DATA_DIR="$data_dir" npm run -s admin -- apple dev-certificate --account "$account_id" --out "$data_dir/dev-apple"
echo "==> npm run example"
BASE_URL="$base_url" API_TOKEN="$account_token" APPLE_ROOT_CA="$data_dir/dev-apple/root.pem" FAKE_APNS_PUSHES="$pushes_file" npm run -s example
echo "==> npm run example:csv (300 members from a CSV file, with a progress bar)"
BASE_URL="$base_url" API_TOKEN="$account_token" ROWS=300 npm run -s example:csv
echo "==> MCP: @modelcontextprotocol/inspector-cli (a client this project did not write) lists the tools and calls one"
# The CLI finds its own package.json relative to the working directory: run it from its build/.
inspector() {
  (cd node_modules/@modelcontextprotocol/inspector-cli/build &&
    timeout 30 node index.js "$base_url/mcp" --transport http --header "Authorization: Bearer $account_token" "$@")
}
inspector --method tools/list | node -e '
  let text = ""; process.stdin.on("data", (d) => (text += d)).on("end", () => {
    const names = JSON.parse(text).tools.map((t) => t.name);
    for (const name of ["createPass", "getPass", "updateLoyalty", "listPasses"]) if (!names.includes(name)) throw new Error(`tools/list has no ${name}: ${names}`);
    console.log(`tools/list: ${names.length} tools`);
  });'
inspector --method tools/call --tool-name listPasses --tool-arg perPage=1 | node -e '
  let text = ""; process.stdin.on("data", (d) => (text += d)).on("end", () => {
    const result = JSON.parse(text);
    if (result.isError || !(result.structuredContent.meta.totalCount >= 1)) throw new Error(`listPasses: ${text.slice(0, 500)}`);
    console.log(`tools/call listPasses: ${result.structuredContent.meta.totalCount} passes`);
  });'

echo
new_account "Quickstart through Prism"
# No Apple credentials here, so the example skips the pass download and the simulated iPhone:
# Prism's proxy re-encodes binary response bodies (stoplightio/prism#1321), which breaks a .pkpass.
echo "==> npm run contract:prism"
BASE_URL="$base_url" API_TOKEN="$account_token" npm run -s contract:prism
