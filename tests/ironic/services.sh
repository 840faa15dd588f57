# Debian's OpenStack Ironic and ironic-inspector, standalone (sourced by
# tests/ironic/run): no authentication, SQLite, the API and the conductor
# talking JSON-RPC, every file below the work folder and every socket bound to
# the address given (198.18.0.1 inside the test's own network namespace).
# The configuration is the README's (docs/ironic/, filled in by
# tests/fleet/collector.sh's fl_fill, which this file needs), plus the
# test's paths and shorter periods in a second file each.
#
#   ir_conf WORK IP                 WORK/ironic.conf, WORK/inspector.conf (and
#                                   their -test.conf), WORK/nginx-ironic.conf
#                                   and WORK/dnsmasq-ironic.conf
#   ir_start WORK                   the databases made, ironic-api,
#                                   ironic-conductor and ironic-inspector
#                                   started; waits until all three answer
#   ir_stop WORK                    ends them (their pid files)
#   ir_api PATH [CURL_ARGS...]      a request to ironic's API (JSON out)
#   ir_inspector PATH [CURL_ARGS...]   the same to inspector's
#   ir_baremetal ARGS...            the operator's client, pointed at the API
#
# Ports: ironic-api 6385, its JSON-RPC to the conductor 8089, inspector 5050;
# the iPXE scripts, kernels and ramdisks Ironic prepares are served from
# WORK/httpboot by the test's nginx on port 8080 ([deploy]http_url).

IR_IP=${IR_IP:-198.18.0.1}

ir_log() { echo "ironic: $*" >&2; }

ir_conf() {
	local w=$1 ip=$2
	IR_IP=$ip
	mkdir -p "$w/ironic-state" "$w/httpboot" "$w/tftpboot" "$w/images" "$w/master_images" \
		"$w/locks" "$w/logs"
	fl_fill "$FL_TOP/docs/ironic/ironic.conf" "$w/ironic.conf" SERVER="$ip" HTTPBOOT="$w/httpboot" || return 1
	fl_fill "$FL_TOP/docs/ironic/inspector.conf" "$w/inspector.conf" SERVER="$ip" || return 1
	fl_fill "$FL_TOP/docs/ironic/nginx-ironic.conf" "$w/nginx-ironic.conf" SERVER="$ip" \
		HTTPBOOT="$w/httpboot" || return 1
	fl_fill "$FL_TOP/docs/ironic/dnsmasq-ironic.conf" "$w/dnsmasq-ironic.conf" SERVER="$ip" || return 1
	# The test's own, after the README's files: every path below WORK, shorter periods.
	cat >"$w/ironic-test.conf" <<CONF
[DEFAULT]
state_path = $w/ironic-state
log_dir = $w/logs
use_stderr = false
minimum_memory_warning_only = true
[database]
connection = sqlite:///$w/ironic.sqlite
[conductor]
heartbeat_interval = 5
[pxe]
tftp_root = $w/tftpboot
tftp_master_path = $w/tftpboot/master_images
images_path = $w/images
instance_master_path = $w/master_images
[inspector]
status_check_period = 5
[oslo_concurrency]
lock_path = $w/locks
CONF
	cat >"$w/inspector-test.conf" <<CONF
[DEFAULT]
log_dir = $w/logs
use_stderr = false
introspection_delay = 0
[database]
connection = sqlite:///$w/inspector.sqlite
[oslo_concurrency]
lock_path = $w/locks
CONF
}

# ir_wait_http URL SECONDS: until something answers there (any HTTP status).
ir_wait_http() {
	local until=$((SECONDS + $2))
	while [ $SECONDS -lt $until ]; do
		curl -s -o /dev/null --max-time 2 "$1" && return 0
		sleep 0.5
	done
	return 1
}

ir_start() {
	local w=$1
	ironic-dbsync --config-file "$w/ironic.conf" --config-file "$w/ironic-test.conf" create_schema >"$w/logs/ironic-dbsync.log" 2>&1 ||
		{ ir_log "ironic-dbsync failed: $(tail -n 3 "$w/logs/ironic-dbsync.log")"; return 1; }
	ironic-inspector-dbsync --config-file "$w/inspector.conf" --config-file "$w/inspector-test.conf" upgrade >"$w/logs/inspector-dbsync.log" 2>&1 ||
		{ ir_log "ironic-inspector-dbsync failed: $(tail -n 3 "$w/logs/inspector-dbsync.log")"; return 1; }
	local s
	for s in ironic-conductor ironic-api; do
		"$s" --config-file "$w/ironic.conf" --config-file "$w/ironic-test.conf" >"$w/logs/$s.out" 2>&1 &
		echo $! >"$w/$s.pid"
	done
	ironic-inspector --config-file "$w/inspector.conf" --config-file "$w/inspector-test.conf" \
		>"$w/logs/ironic-inspector.out" 2>&1 &
	echo $! >"$w/ironic-inspector.pid"
	ir_wait_http "http://$IR_IP:6385/" 120 || { ir_log "ironic-api did not answer: $(tail -n 5 "$w/logs/ironic-api.out")"; return 1; }
	ir_wait_http "http://$IR_IP:5050/" 120 || { ir_log "ironic-inspector did not answer: $(tail -n 5 "$w/logs/ironic-inspector.out")"; return 1; }
	# the conductor is up once it has registered its drivers with the API
	local until=$((SECONDS + 120))
	while [ $SECONDS -lt $until ]; do
		ir_api /v1/drivers 2>/dev/null | grep -q manual-management && return 0
		sleep 1
	done
	ir_log "ironic-conductor did not register: $(tail -n 5 "$w/logs/ironic-conductor.out")"
	return 1
}

ir_stop() {
	local s
	for s in ironic-api ironic-conductor ironic-inspector; do
		fl_stop_pidfile "$1/$s.pid"
	done
}

ir_api() {
	local path=$1
	shift
	curl -sS --max-time 30 -H 'X-OpenStack-Ironic-API-Version: latest' -H 'Content-Type: application/json' \
		"$@" "http://$IR_IP:6385$path"
}

ir_inspector() {
	local path=$1
	shift
	curl -sS --max-time 30 -H 'X-OpenStack-Ironic-Inspector-API-Version: 1.18' -H 'Content-Type: application/json' \
		"$@" "http://$IR_IP:5050$path"
}

# as the README has the operator set it: OS_AUTH_TYPE=none OS_ENDPOINT=http://SERVER:6385
ir_baremetal() {
	OS_AUTH_TYPE=none OS_ENDPOINT="http://$IR_IP:6385" baremetal "$@"
}
