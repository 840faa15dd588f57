#!/usr/bin/env bash
# make fleet-load (not a test): the collector's load when N machines (20)
# deliver a quick plan's run at the same moment, beside one alone. In a
# network namespace of its own (removed at the end): nginx and rsyslog as
# the fleet test runs them (docs/fleet/), and N `probestick send` at once,
# each with a run folder of its own machine id (copies of the fleet test's
# iPXE run, else of an inventory run on the QEMU fixture tree), over HTTPS
# with basic authentication and RFC 5425 syslog. Prints the wall time, the
# collector's CPU time (nginx and rsyslogd, from /proc), the requests and
# bytes nginx logged, and whether every run arrived whole.
# Usage: tests/fleet/load.sh [N]
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
TOP=$PWD
OUT=${OUT:-out}
case $OUT in /*) ;; *) OUT=$TOP/$OUT ;; esac
N=${1:-20}
WORK=$OUT/fleet-load
IP=127.0.0.1 # the namespace's own loopback: nothing leaves it
. "$TOP/tests/fleet/collector.sh"

if [ "${2:-}" != --inside ]; then
	[ "$(id -u)" = 0 ] || { echo "fleet-load: needs root (a network namespace)"; exit 1; }
	ns=psload$$
	rm -rf "$WORK"
	mkdir -p "$WORK"
	cleanup() {
		local pids
		pids=$(ip netns pids "$ns" 2>/dev/null)
		# shellcheck disable=SC2086
		[ -z "$pids" ] || kill -9 $pids 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	}
	trap cleanup EXIT
	ip netns add "$ns" || exit 1
	ip netns exec "$ns" "$0" "$N" --inside
	exit $?
fi

ip link set lo up
fl_ca "$WORK" collector.load.test "$IP" || exit 1
PASS=$(openssl rand -hex 12)
fl_htpasswd "$WORK/htpasswd" fleet "$PASS"
fl_nginx_conf "$WORK" "$IP" "$WORK" "$WORK/server.pem" "$WORK/server.key" || exit 1
fl_nginx_start "$WORK" || exit 1
fl_rsyslog_start "$WORK" "$IP" || exit 1

# N machines' runs: the fleet test's iPXE run if there is one, else an inventory run.
src=$(ls -d "$OUT"/fleet-test/www/fleet/525400f1ee03/*-quick 2>/dev/null | head -n 1)
if [ -z "$src" ]; then
	"$OUT/probestick" --root tests/fixtures/sysroot-qemu run --steps inventory --out "$WORK/gen" >/dev/null 2>&1
	src=$(ls -d "$WORK"/gen/*/*-custom | head -n 1)
fi
[ -n "$src" ] || { fl_log "no run folder to send"; exit 1; }
run=$(basename "$src")
for i in $(seq 1 "$N"); do
	mkdir -p "$WORK/src/$i/fleetload$(printf %03d "$i")"
	cp -r "$src" "$WORK/src/$i/fleetload$(printf %03d "$i")/$run"
done
bytes_run=$(du -cb "$src"/report.* | tail -n 1 | cut -f1)

cpu_ticks() { # the CPU time (ticks) of nginx's and rsyslogd's processes so far
	local t=0 p f
	for p in $(pgrep -x nginx) $(pgrep -x rsyslogd); do
		read -r -a f <"/proc/$p/stat" 2>/dev/null || continue
		t=$((t + f[13] + f[14]))
	done
	echo "$t"
}
hz=$(getconf CLK_TCK)
send_all() { # FIRST LAST
	local i
	for i in $(seq "$1" "$2"); do
		PROBESTICK_COLLECT_PASSWORD=$PASS "$OUT/probestick" send --collect "https://$IP/fleet/" \
			--ca "$WORK/ca.pem" --user fleet --syslog "tls://$IP" --wait 120 "$WORK/src/$i" \
			>"$WORK/send-$i.log" 2>&1 &
	done
	wait
}
measure() { # LABEL FIRST LAST
	local c0 c1 t0 t1 n=$(($3 - $2 + 1)) ok
	: >"$WORK/access.log"
	c0=$(cpu_ticks)
	t0=$(date +%s.%N)
	send_all "$2" "$3"
	t1=$(date +%s.%N)
	sleep 1 # rsyslog writes what it has
	c1=$(cpu_ticks)
	ok=$(grep -l "all delivered" "$WORK"/send-*.log | wc -l)
	awk -v label="$1" -v n="$n" -v t0="$t0" -v t1="$t1" -v cpu=$((c1 - c0)) -v hz="$hz" -v ok="$ok" -v per="$bytes_run" '
		{ req++; in_b += $6; if ($5 >= 400) bad++ }
		END {
			printf "%s: %d machines at once: %.2f s wall, collector CPU %.2f s (nginx and rsyslogd), %d requests (%d refused), %.1f MB in (%.2f MB per run of %.2f MB files), %d of %d delivered\n",
				label, n, t1 - t0, cpu / hz, req, bad, in_b / 1e6, in_b / n / 1e6, per / 1e6, ok, n
		}' "$WORK/access.log" | tee -a "$WORK/summary.txt"
	rm -f "$WORK"/send-*.log
}
: >"$WORK/summary.txt"
measure "one" 1 1
rm -rf "$WORK/www/fleet"/* "$WORK/syslog"/*
measure "fleet" 1 "$N"
# every run whole on the collector, and in the syslog receiver's files
whole=0
for i in $(seq 1 "$N"); do
	d=$WORK/www/fleet/fleetload$(printf %03d "$i")/$run
	cmp -s "$d/report.json" "$src/report.json" && cmp -s "$d/report.ocp.jsonl" "$src/report.ocp.jsonl" &&
		cmp -s "$WORK/syslog/fleetload$(printf %03d "$i")/$run/report.ocp.jsonl" "$src/report.ocp.jsonl" &&
		whole=$((whole + 1))
done
echo "fleet: $whole of $N runs whole on the collector and in syslog" | tee -a "$WORK/summary.txt"
[ "$whole" -eq "$N" ]
