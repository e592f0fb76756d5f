# Sourced by .ci/run and scripts/load-faults.sh: a throwaway PostgreSQL cluster. Debian's server
# (installed when missing), a cluster in a temporary folder on a free loopback port, run as the
# unprivileged `postgres` user when this runs as root (initdb refuses root).
#   start_throwaway_postgres   starts it; sets pg_bin, pg_folder, pg_port and pg_url (database postgres)
#   restart_postgres           pg_ctl restart -m fast (the clients' connections are cut)
#   stop_postgres              stops it and removes its folder
newest_pg_bin() { (compgen -G "/usr/lib/postgresql/*/bin/initdb" || true) | sort -V | tail -1 | xargs -r dirname; }

start_throwaway_postgres() {
    pg_bin=$(newest_pg_bin)
    if [[ -z "$pg_bin" ]]; then
        local sudo=""
        [[ $(id -u) -eq 0 ]] || sudo="sudo"
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends postgresql >/dev/null
        pg_bin=$(newest_pg_bin)
    fi
    pg_folder=$(mktemp -d)
    as_postgres=()
    if [[ $(id -u) -eq 0 ]]; then
        chown postgres "$pg_folder"
        as_postgres=(runuser -u postgres --)
    fi
    pg_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    "${as_postgres[@]}" "$pg_bin/initdb" -D "$pg_folder/data" -U opep --auth=trust -E UTF8 >"$pg_folder/initdb.log"
    "${as_postgres[@]}" "$pg_bin/pg_ctl" -D "$pg_folder/data" -l "$pg_folder/server.log" -w \
        -o "-p $pg_port -k $pg_folder -c listen_addresses=127.0.0.1" start >/dev/null
    pg_url="postgres://opep@127.0.0.1:$pg_port/postgres"
}

restart_postgres() { "${as_postgres[@]}" "$pg_bin/pg_ctl" -D "$pg_folder/data" -l "$pg_folder/server.log" -m fast -w restart >/dev/null; }

stop_postgres() {
    [[ -n "${pg_folder:-}" ]] || return 0
    "${as_postgres[@]}" "$pg_bin/pg_ctl" -D "$pg_folder/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$pg_folder"
}
