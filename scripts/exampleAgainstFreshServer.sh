#!/usr/bin/env bash
# CI: runs the quickstart example against a fresh server, then the same flow through Stoplight
# Prism (npm run contract:prism). Starts `npm start` on an empty embedded data directory and a free
# loopback port, waits for /readyz (ready, not only alive), makes two accounts with an entity each with the admin CLI (one
# per run, so that both runs take the first-time path: the reader is created, not found), runs
# `npm run example` and `npm run contract:prism`, and always stops the server and removes the data
# directory. The first account gets development Apple credentials (npm run admin -- apple
# dev-certificate), so that the example downloads a signed pass and verifies it. Exits non-zero
# when any step fails; the server's log tail is printed then.
#
# The server runs with VALIDATE_RESPONSES off, as in production: Prism, not the server's own
# validator, is what judges the responses.
set -euo pipefail
cd "$(dirname "$0")/.."
# Hermetic: the embedded database in the fresh directory, its generated admin token, and the
# entity the example finds for itself.
unset DATABASE_URL ADMIN_TOKEN ENTITY_ID

data_dir=$(mktemp -d)
server_log="$data_dir/server.log"
port=$(node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });')
base_url="http://127.0.0.1:$port"
server_pid=

cleanup() {
  local status=$?
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    # npm start runs npm → sh → tsx → node in the server's own process group: stop all of it.
    kill -TERM -- "-$server_pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL -- "-$server_pid" 2>/dev/null || true
  fi
  if [ "$status" -ne 0 ] && [ -f "$server_log" ]; then
    echo "--- last lines of the server log ---" >&2
    tail -n 40 "$server_log" >&2
  fi
  rm -rf "$data_dir"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "Starting the server on $base_url (DATA_DIR=$data_dir)"
DATA_DIR="$data_dir" PORT="$port" HOST=127.0.0.1 setsid npm start >"$server_log" 2>&1 &
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
BASE_URL="$base_url" API_TOKEN="$account_token" APPLE_ROOT_CA="$data_dir/dev-apple/root.pem" npm run -s example

echo
new_account "Quickstart through Prism"
echo "==> npm run contract:prism"
BASE_URL="$base_url" API_TOKEN="$account_token" npm run -s contract:prism
