#!/usr/bin/env bash
# pg.sh manages a private PostgreSQL cluster for local runs and tests.
#
#   scripts/pg.sh start DIR [--fast] [--stat-statements]
#                                      init (first time) and start a cluster in DIR; prints its admin URL
#   scripts/pg.sh stop DIR [--remove] stop the cluster in DIR (no-op when not running); --remove also
#                                      deletes its files
#   scripts/pg.sh restart DIR          restart a running cluster (fast: open sessions are ended), on its port
#   scripts/pg.sh url DIR              print the admin URL of a running cluster
#   scripts/pg.sh createdb DIR NAME    create database NAME unless it exists; prints its URL
#
# The binaries come from PATH or /usr/lib/postgresql/*/bin. initdb refuses to run as root, so as root
# every server command runs as the `postgres` system user on a directory that user owns. When that user
# cannot reach DIR (a checkout under /root, say), the server's files live in a directory of its own
# under ${TMPDIR:-/tmp} instead, named after DIR, and DIR keeps a note of where. --fast turns
# durability off (fsync, synchronous_commit): for throwaway test clusters only. Other clusters get a
# 512MB buffer cache instead of PostgreSQL's 128MB default. --stat-statements preloads
# pg_stat_statements (the benchmark's per-statement breakdown; a database still needs
# CREATE EXTENSION pg_stat_statements to read it).
set -euo pipefail

die() { echo "pg.sh: $*" >&2; exit 1; }

find_bin() {
  if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
    dirname "$(command -v pg_ctl)"
    return
  fi
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  [ -n "$d" ] && [ -x "$d/initdb" ] || die "PostgreSQL binaries not found (install Debian's postgresql package)"
  echo "$d"
}

as_pg() {
  if [ "$(id -u)" = 0 ]; then
    (cd / && runuser -u postgres -- "$@") # from /: the postgres user may not enter the current directory
  else
    "$@"
  fi
}

free_port() {
  local p
  for _ in $(seq 1 200); do
    p=$(( 20000 + RANDOM % 20000 ))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      echo "$p"
      return
    fi
  done
  die "no free port found"
}

cmd=${1:-}; dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || die "usage: pg.sh start|stop|restart|url|createdb DIR [...]"
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
bin=$(find_bin)

# pgdir holds what the server itself reads and writes (data, socket, log): DIR, unless the postgres
# user cannot reach DIR.
pgdir=$dir
if [ -s "$dir/pgdir" ]; then
  pgdir=$(cat "$dir/pgdir")
elif [ "$(id -u)" = 0 ] && ! as_pg test -x "$dir" 2>/dev/null; then
  pgdir="${TMPDIR:-/tmp}/pilot-pg-$(printf %s "$dir" | sha1sum | cut -c1-16)"
  mkdir -p "$pgdir"
  echo "$pgdir" >"$dir/pgdir"
fi
data="$pgdir/data"

find_psql() {
  if command -v psql >/dev/null 2>&1; then command -v psql; return; fi
  local p
  p=$(ls /usr/lib/postgresql/*/bin/psql 2>/dev/null | sort -V | tail -n 1 || true)
  [ -n "$p" ] || die "psql not found (install Debian's postgresql-client package)"
  echo "$p"
}

url() { echo "postgres://postgres@127.0.0.1:$(cat "$dir/port")/postgres?sslmode=disable"; }

case "$cmd" in
start)
  fast="" stats=""
  for a in "${@:3}"; do
    case "$a" in
    --fast) fast=$a ;;
    --stat-statements) stats=$a ;;
    *) die "unknown start option $a" ;;
    esac
  done
  if [ "$(id -u)" = 0 ]; then chown postgres: "$pgdir"; fi
  if [ ! -s "$data/PG_VERSION" ]; then
    as_pg "$bin/initdb" -D "$data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; die "initdb failed (as root, the postgres user must be able to write to $pgdir)"; }
  fi
  if as_pg "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
    url
    exit 0
  fi
  # A cluster started again keeps its port while it is free, so URLs handed out before stay good.
  port=$(cat "$dir/port" 2>/dev/null || true)
  if [ -z "$port" ] || (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    port=$(free_port)
  fi
  echo "$port" >"$dir/port"
  opts="-p $port -k $pgdir -c listen_addresses=127.0.0.1 -c max_connections=400"
  if [ "$fast" = "--fast" ]; then
    opts="$opts -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
  else
    # PostgreSQL's 128MB default buffer cache is sized for tiny machines; a service's cards, activities
    # and job tables outgrow it quickly (measured: more card creates and lists per second with 512MB).
    opts="$opts -c shared_buffers=512MB"
  fi
  if [ -n "$stats" ]; then
    opts="$opts -c shared_preload_libraries=pg_stat_statements"
  fi
  as_pg "$bin/pg_ctl" -D "$data" -l "$pgdir/server.log" -o "$opts" -w -t 60 start >/dev/null \
    || { tail -n 20 "$pgdir/server.log" >&2; die "PostgreSQL did not start"; }
  url
  ;;
stop)
  if [ -s "$data/PG_VERSION" ] && as_pg "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
    as_pg "$bin/pg_ctl" -D "$data" -m fast -w stop >/dev/null
  fi
  if [ "${3:-}" = "--remove" ]; then
    [ "$pgdir" = "$dir" ] || rm -rf "$pgdir"
    rm -rf "$dir"
  fi
  ;;
restart)
  as_pg "$bin/pg_ctl" -D "$data" -l "$pgdir/server.log" -m fast -w -t 60 restart >/dev/null \
    || { tail -n 20 "$pgdir/server.log" >&2; die "PostgreSQL did not restart"; }
  ;;
url)
  url
  ;;
createdb)
  name=${3:?database name}
  psql=$(find_psql)
  admin=$(url)
  if ! "$psql" "$admin" -tAc "SELECT 1 FROM pg_database WHERE datname = '$name'" | grep -q 1; then
    "$psql" "$admin" -qc "CREATE DATABASE \"$name\""
  fi
  echo "postgres://postgres@127.0.0.1:$(cat "$dir/port")/$name?sslmode=disable"
  ;;
*)
  die "unknown command $cmd"
  ;;
esac
