#!/usr/bin/env bash
# bench/run.sh: load-test the api with wrk on this machine (load generator on the same cores).
# Starts its own PostgreSQL (default durability, pg_stat_statements loaded) and api, seeds data through
# the API, then measures:
#   pgbench: one-row INSERT transactions into a card-shaped table (32 connections), the floor a card
#   create is compared with;
#   card create (32 connections) in a project with one member and in one with two (there each create
#   also enqueues its notification job), each printed also as a share of pgbench's tps, with its CPU per
#   create and its statements by total time (pg_stat_statements, reset before each);
#   list a 50-card project, list a 1,000-card project (latency), GET /auth/me (8 and 32 connections).
# Each measured run follows an unmeasured warm-up of the same load (WARMUP, default 3s).
# Figures are printed; nothing here fails on a slow machine.
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-10s}
CONNS=${CONNS:-32}
THREADS=${THREADS:-2}
PORT=${BENCH_PORT:-18181}

command -v wrk >/dev/null || { echo "installing wrk"; apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
command -v jq >/dev/null || { echo "installing jq"; apt-get update -qq && apt-get install -y -qq jq >/dev/null; }

dir=".data/bench-$$"
. bench/lib.sh
bench_start "$dir" --stat-statements
export PORT APP_ENV=production JWT_SECRET=bench-secret-bench-secret-bench-secret LOG_LEVEL=warn
export DATABASE_MAX_CONNS=${DATABASE_MAX_CONNS:-40} LOGIN_RATE_LIMIT=100000
# PROFILE=1: the api serves its profiler on PORT+1, and each create profile's CPU profile is saved to
# .data/bench-create-cpu.pprof and .data/bench-create-team-cpu.pprof, its top functions printed after
# its statements; the 50-card list's to .data/bench-list-cpu.pprof.
if curl -sf -o /dev/null "http://127.0.0.1:$PORT/healthz"; then
  echo "port $PORT already answers: another api is running there (stop it, or set BENCH_PORT)" >&2
  exit 1
fi
if [ "${PROFILE:-}" = 1 ]; then export PPROF_ADDR=127.0.0.1:$((PORT + 1)); fi
PORT=$PORT bin/pilot api >"$dir/api.log" 2>&1 &
BENCH_PIDS+=($!)
API_PID=$!
B="http://127.0.0.1:$PORT"
for _ in $(seq 1 100); do curl -sf "$B/healthz" >/dev/null && break; sleep 0.1; done

J='Content-Type: application/json'
TOKEN=$(curl -sf -XPOST "$B/auth/register" -H "$J" -d '{"email":"bench@example.com","password":"bench-password","name":"Bench"}' | jq -r .access_token)
ORG=$(curl -sf "$B/organizations" -H "Authorization: Bearer $TOKEN" | jq -r '.[0].slug')
WS="$B/orgs/$ORG/workspaces/personal"
mkproject() { curl -sf -XPOST "$WS/projects" -H "$J" -H "Authorization: Bearer $TOKEN" -d "{\"name\":\"$1\"}" | jq -r .id; }
seed() { # project, count
  local prj=$1 n=$2 col
  col=$(curl -sf "$WS/projects/$prj/columns" -H "Authorization: Bearer $TOKEN" | jq -r '.[0].id')
  seq 1 "$n" | xargs -P 8 -I{} curl -sf -o /dev/null -XPOST "$WS/projects/$prj/columns/$col/cards" -H "$J" \
    -H "Authorization: Bearer $TOKEN" -d '{"title":"Seeded card {}","description":"Some words about the card","priority":"high","checklist":[{"title":"a"},{"title":"b","done":true}]}'
  echo "$col"
}
P50=$(mkproject "fifty"); seed "$P50" 50 >/dev/null
P1K=$(mkproject "thousand"); seed "$P1K" 1000 >/dev/null
PC=$(mkproject "creates"); COL=$(curl -sf "$WS/projects/$PC/columns" -H "Authorization: Bearer $TOKEN" | jq -r '.[0].id')
# A project with a second member, who hears of every create: each create there also enqueues its
# notification job (in the one-member project above nobody but the creator would hear of it, so none is).
PT=$(mkproject "team creates"); COLT=$(curl -sf "$WS/projects/$PT/columns" -H "Authorization: Bearer $TOKEN" | jq -r '.[0].id')
TEAMMATE=$(curl -sf -XPOST "$B/auth/register" -H "$J" -d '{"email":"teammate@example.com","password":"bench-password","name":"Teammate"}' | jq -r .access_token)
INVITE=$(curl -sf -XPOST "$WS/members/invite" -H "$J" -H "Authorization: Bearer $TOKEN" -d '{"email":"teammate@example.com","role":"member"}' | jq -r .token)
curl -sf -o /dev/null -XPOST "$B/invitations/$INVITE/accept" -H "Authorization: Bearer $TEAMMATE"
curl -sf -o /dev/null -XPOST "$WS/projects/$PT/members" -H "$J" -H "Authorization: Bearer $TOKEN" -d '{"email":"teammate@example.com"}'

# The floor for a create: pgbench on the same cluster and durability (its default synchronous_commit),
# one transaction per row into a table shaped like a small card row, in a database of its own.
pgbin() { command -v "$1" 2>/dev/null || ls /usr/lib/postgresql/*/bin/"$1" | sort -V | tail -n 1; }
PSQL=$(pgbin psql); PGBENCH=$(pgbin pgbench)
PGB_URL=$(scripts/pg.sh createdb "$dir" pgbench)
"$PSQL" "$PGB_URL" -qc "CREATE TABLE bench_cards (id uuid PRIMARY KEY, title text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())"
echo "INSERT INTO bench_cards (id, title, created_at) VALUES (gen_random_uuid(), 'Load card ' || :client_id, now());" >"$dir/insert.sql"

cat >"$dir/create.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer $TOKEN"
counter = 0
request = function()
  counter = counter + 1
  return wrk.format(nil, nil, nil, '{"title":"Load card ' .. counter .. '","priority":"medium"}')
end
done = function(summary, latency, requests)
  io.write(string.format("non-2xx or socket errors: %d\n", summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
LUA

run() { runc "$CONNS" "$@"; }
# Each measurement follows a WARMUP-long run of the same load, not measured: the api's pool opens its
# connections and PostgreSQL caches its plans then, so the figures are the steady state.
WARMUP=${WARMUP:-3s}
runc() {
  local c=$1; shift; echo; echo "== $1 ($c connections)"; shift
  wrk -t"$THREADS" -c"$c" -d"$WARMUP" -H "Authorization: Bearer $TOKEN" "$@" >/dev/null
  wrk -t"$THREADS" -c"$c" -d"$DURATION" --latency -H "Authorization: Bearer $TOKEN" "$@" | grep -E "Requests/sec|Latency|50%|99%|non-2xx|errors|requests in"
}
echo "machine: $(nproc) cores; wrk -t$THREADS -c$CONNS -d$DURATION"
echo; echo "== pgbench: one-row INSERT per transaction ($CONNS connections, synchronous_commit=$("$PSQL" "$PGB_URL" -tAc 'SHOW synchronous_commit'))"
secs() { case $1 in *m) echo $((${1%m} * 60)) ;; *s) echo "${1%s}" ;; *) echo "$1" ;; esac; } # wrk's 10s, 1m
pgb() { "$PGBENCH" -n -f "$dir/insert.sql" -c "$CONNS" -j "$THREADS" -T "$(secs "$1")" "$PGB_URL" 2>&1; }
pgb "$WARMUP" >/dev/null
PGB_TPS=$(pgb "$DURATION" | tee "$dir/pgbench.out" | sed -nE 's/^tps = ([0-9.]+).*/\1/p')
grep -E "^(latency average|tps)" "$dir/pgbench.out"

# pg_stat_statements counts each create profile's statements only (reset before each; the seeding and
# pgbench are left out). STATEMENTS_TRACK=all also lists the statements run inside functions, triggers
# and foreign-key checks (their time is then counted both there and in the statement that ran them).
if [ "${STATEMENTS_TRACK:-top}" != top ]; then
  "$PSQL" "$DATABASE_URL" -q -c "ALTER SYSTEM SET pg_stat_statements.track = '$STATEMENTS_TRACK'" -c "SELECT pg_reload_conf()" >/dev/null
fi
"$PSQL" "$DATABASE_URL" -qc "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" >/dev/null
# CPU over the creates (warm-up and measured run), split into the api, PostgreSQL and the rest (wrk).
postmaster=$(head -n 1 "$(cat "$dir/pgdir" 2>/dev/null || echo "$dir")/data/postmaster.pid")
ticks() { # utime+stime of the given pids; the first one's also counts its children that have exited
  local sum=0 p f first=1
  for p in "$@"; do
    f=$(cat "/proc/$p/stat" 2>/dev/null) || continue
    f=${f##*) }
    read -r -a f <<<"$f"
    sum=$((sum + f[11] + f[12]))
    [ "$first" = 1 ] && sum=$((sum + f[13] + f[14]))
    first=0
  done
  echo "$sum"
}
busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; } # all cores, ticks
cpu() { # api, PostgreSQL (postmaster first), all cores
  local kids
  mapfile -t kids < <(pgrep -P "$postmaster")
  echo "$(ticks "$API_PID") $(ticks "$postmaster" "${kids[@]}") $(busy)"
}
# creates LABEL PROJECT COLUMN [PROFILE_FILE]: the create load on a column, its rate beside pgbench's, its CPU
# per create and its statements by total time.
creates() {
  local label=$1 prj=$2 col=$3 prof=${4:-} api0 pg0 all0 api1 pg1 all1 rate n prof_pid=""
  "$PSQL" "$DATABASE_URL" -qc "SELECT pg_stat_statements_reset()" >/dev/null
  read -r api0 pg0 all0 <<<"$(cpu)"
  if [ -n "$prof" ] && [ -n "${PPROF_ADDR:-}" ]; then
    curl -sf -o "$prof" "http://$PPROF_ADDR/debug/pprof/profile?seconds=$(($(secs "$WARMUP") + $(secs "$DURATION")))" &
    prof_pid=$!
  fi
  run "$label" -s "$dir/create.lua" "$WS/projects/$prj/columns/$col/cards" | tee "$dir/create.out"
  read -r api1 pg1 all1 <<<"$(cpu)"
  rate=$(sed -nE 's/^Requests\/sec: *([0-9.]+).*/\1/p' "$dir/create.out")
  awk -v c="$rate" -v p="$PGB_TPS" 'BEGIN { printf "creates / pgbench INSERT = %.0f%% (%.0f / %.0f per second)\n", 100 * c / p, c, p }'
  n=$("$PSQL" "$DATABASE_URL" -tAc "SELECT calls FROM pg_stat_statements WHERE query LIKE '%name: CardInsert %'")
  awk -v n="$n" -v hz="$(getconf CLK_TCK)" -v a=$((api1 - api0)) -v g=$((pg1 - pg0)) -v t=$((all1 - all0)) \
    'BEGIN { u = 1e6 / hz / n; printf "CPU per create: api %.0f µs, PostgreSQL %.0f µs, rest (wrk, other) %.0f µs (%d creates)\n", a * u, g * u, (t - a - g) * u, n }'
  echo; echo "-- the creates' statements by total time (pg_stat_statements, warm-up and measured run)"
  "$PSQL" "$DATABASE_URL" -P pager=off -P footer=off -c "
    SELECT calls, round(total_exec_time::numeric, 0) AS total_ms, round(mean_exec_time::numeric, 3) AS mean_ms,
           round((100 * total_exec_time / sum(total_exec_time) OVER ())::numeric, 1) AS \"share_%\",
           left(regexp_replace(query, '\s+', ' ', 'g'), 90) AS statement
    FROM pg_stat_statements
    WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
      AND query NOT LIKE '%pg_stat_statements%'
    ORDER BY total_exec_time DESC LIMIT 15"
  if [ -n "$prof_pid" ]; then
    wait "$prof_pid" || true
    echo; echo "-- the api's CPU profile of these creates ($prof; go tool pprof -top)"
    go tool pprof -top -nodecount=30 bin/pilot "$prof" 2>/dev/null | sed -n '4,40p'
  fi
}
creates "card create (POST …/columns/:id/cards), a project with one member" "$PC" "$COL" .data/bench-create-cpu.pprof
creates "card create, a project with two members (each create enqueues its notification job)" "$PT" "$COLT" .data/bench-create-team-cpu.pprof
echo "cards created in the column: $("$PSQL" "$DATABASE_URL" -tAc "SELECT count(*) FROM cards WHERE project_id = '$PC'")" # the list pages past 1000
# profiled FILE CMD…: CMD, with the api's CPU profile over it saved to FILE and its top printed (PROFILE=1).
profiled() {
  local prof=$1 pid=""; shift
  if [ -n "${PPROF_ADDR:-}" ]; then
    curl -sf -o "$prof" "http://$PPROF_ADDR/debug/pprof/profile?seconds=$(($(secs "$WARMUP") + $(secs "$DURATION")))" &
    pid=$!
  fi
  "$@"
  if [ -n "$pid" ]; then
    wait "$pid" || true
    echo; echo "-- the api's CPU profile of this load ($prof; go tool pprof -top)"
    go tool pprof -top -nodecount=30 bin/pilot "$prof" 2>/dev/null | sed -n '4,40p'
  fi
}
profiled .data/bench-list-cpu.pprof run "list a 50-card project (GET …/cards)" "$WS/projects/$P50/cards"
run "list a 1,000-card project (GET …/cards)" "$WS/projects/$P1K/cards"
runc 2 "list a 1,000-card project, one client per core (GET …/cards)" "$WS/projects/$P1K/cards"
runc 8 "GET /auth/me (the guard: token, session and user)" "$B/auth/me"
run "GET /auth/me (the guard: token, session and user)" "$B/auth/me"

# Card mission with the offline planner: time from the request to the first streamed event, and to the
# end of the stream (mission completed), measured by curl on a fresh card each time; a stream still open
# after two minutes is cut (curl's exit status 28 is then printed, and the run goes on).
# PPROF_ADDR is the api's (PROFILE=1): a worker given the same address would fail to start on it, and no
# mission would end.
PPROF_ADDR= bin/pilot worker >"$dir/worker.log" 2>&1 &
BENCH_PIDS+=($!)
AGENT=$(curl -sf -XPOST "$WS/agents" -H "$J" -H "Authorization: Bearer $TOKEN" \
  -d '{"name":"Planner","slug":"planner","autonomyMode":"autonomous"}' | jq -r .id)
echo; echo "== card-mission (offline planner): seconds to first event byte / to stream end"
for i in 1 2 3 4 5; do
  CARD=$(curl -sf -XPOST "$WS/projects/$P50/cards" -H "$J" -H "Authorization: Bearer $TOKEN" \
    -d '{"title":"Mission card '"$i"'","description":"- write the plan\n- review it\n- ship"}' | jq -r .id)
  curl -sN --max-time 120 -o /dev/null -w "  run $i: %{time_starttransfer} / %{time_total}\n" -XPOST "$WS/agent-runtime/card-mission" \
    -H "$J" -H "Authorization: Bearer $TOKEN" -d '{"cardId":"'"$CARD"'","projectId":"'"$P50"'","agentId":"'"$AGENT"'"}' ||
    echo "  run $i: the stream did not end within 120 s (curl exit status $?)"
done
