# The fleet test's servers (sourced), from the README's own configuration
# files (docs/fleet/): a test CA and certificates, nginx with WebDAV behind
# HTTPS and basic authentication (and the netboot tree over HTTP), rsyslog
# taking RFC 5425 syslog over TLS, dnsmasq for DHCP, TFTP and the
# collector's name. Each listens only on the address given (198.18.0.1
# inside the test's own network namespace) and writes below the work folder.
#
#   fl_ca WORK NAME IP          a CA and a server certificate for NAME and IP
#                               (WORK/ca.pem, WORK/server.{pem,key}), and an
#                               unrelated CA's certificate for the same names
#                               (WORK/wrong.{pem,key})
#   fl_htpasswd FILE USER PASS  nginx's basic authentication file
#   fl_fill TEMPLATE OUT NAME=VALUE...   docs/fleet/ with its @NAMES@ filled
#   fl_nginx_conf WORK IP TREE CERT KEY  WORK/nginx.conf around the README's
#                               site file; runs land in WORK/www/fleet/
#   fl_nginx_start WORK / fl_nginx_stop WORK
#   fl_rsyslog_start WORK IP    lines in WORK/syslog/<machine>/<run>/...
#   fl_dnsmasq_start WORK IF IP TREE [EXTRA_LINE...]
#   fl_stop_pidfile FILE        ends the process a pid file names

FL_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

fl_log() { echo "fleet: $*" >&2; }

fl_ca() {
	local w=$1 name=$2 ip=$3 pre srv
	printf 'subjectAltName=DNS:%s,IP:%s\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' \
		"$name" "$ip" >"$w/san.cnf"
	for pre in "" wrong-; do
		openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=probestick fleet test ${pre}CA" \
			-keyout "$w/${pre}ca.key" -out "$w/${pre}ca.pem" 2>/dev/null || return 1
		srv=$w/${pre:-server-}
		srv=${srv%-}
		openssl req -newkey rsa:2048 -nodes -subj "/CN=$name" -keyout "$srv.key" -out "$srv.csr" \
			2>/dev/null || return 1
		openssl x509 -req -in "$srv.csr" -CA "$w/${pre}ca.pem" -CAkey "$w/${pre}ca.key" \
			-CAcreateserial -days 2 -extfile "$w/san.cnf" -out "$srv.pem" 2>/dev/null || return 1
	done
}

fl_htpasswd() {
	printf '%s:%s\n' "$2" "$(openssl passwd -apr1 "$3")" >"$1"
}

fl_fill() {
	local tpl=$1 out=$2 kv args=()
	shift 2
	for kv in "$@"; do
		args+=(-e "s|@${kv%%=*}@|${kv#*=}|g")
	done
	sed "${args[@]}" "$tpl" >"$out"
	if grep -q '^[^#]*@[A-Z_]*@' "$out"; then
		fl_log "$tpl: a field is left unfilled in $out: $(grep -m1 '^[^#]*@[A-Z_]*@' "$out")"
		return 1
	fi
}

# The README's site file inside a main file of the test's own (pid, logs and
# temporary files below WORK; root, so the uploads land in WORK as root).
fl_nginx_conf() {
	local w=$1 ip=$2 tree=$3 cert=$4 key=$5
	mkdir -p "$w/www/fleet" "$w/nginx-tmp"
	fl_fill "$FL_TOP/docs/fleet/nginx-site.conf" "$w/nginx-site.conf" SERVER="$ip" NETBOOT="$tree" \
		COLLECTOR="$w/www" CERT="$cert" KEY="$key" HTPASSWD="$w/htpasswd" || return 1
	cat >"$w/nginx.conf" <<NGINX
# tests/fleet: the README's site file (docs/fleet/nginx-site.conf) in a main file of the test's own
user root;
worker_processes 1;
pid $w/nginx.pid;
error_log $w/nginx-error.log info;
events { worker_connections 512; }
http {
	log_format fleet '\$msec \$remote_addr \$request_method \$uri \$status \$request_length \$bytes_sent \$request_time';
	access_log $w/access.log fleet;
	client_body_temp_path $w/nginx-tmp/body;
	proxy_temp_path $w/nginx-tmp/proxy;
	fastcgi_temp_path $w/nginx-tmp/fastcgi;
	uwsgi_temp_path $w/nginx-tmp/uwsgi;
	scgi_temp_path $w/nginx-tmp/scgi;
	default_type application/octet-stream;
	sendfile on;
	include $w/nginx-site.conf;
}
NGINX
}

fl_nginx_start() {
	rm -f "$1/nginx.pid"
	nginx -c "$1/nginx.conf" -e "$1/nginx-error.log" || return 1
	for _ in $(seq 1 50); do
		[ -s "$1/nginx.pid" ] && return 0
		sleep 0.1
	done
	fl_log "nginx did not start: $(tail -n 5 "$1/nginx-error.log")"
	return 1
}

fl_stop_pidfile() {
	local pid
	pid=$(cat "$1" 2>/dev/null) || return 0
	[ -n "$pid" ] || return 0
	kill "$pid" 2>/dev/null
	for _ in $(seq 1 50); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -9 "$pid" 2>/dev/null
	rm -f "$1"
}

fl_nginx_stop() { fl_stop_pidfile "$1/nginx.pid"; }

fl_rsyslog_start() {
	local w=$1 ip=$2
	mkdir -p "$w/rsyslog" "$w/syslog"
	fl_fill "$FL_TOP/docs/fleet/rsyslog-probestick.conf" "$w/rsyslog-probestick.conf" SERVER="$ip" \
		SYSLOG_DIR="$w/syslog" CA="$w/ca.pem" CERT="$w/server.pem" KEY="$w/server.key" || return 1
	printf '# tests/fleet: the README'"'"'s drop-in (docs/fleet/rsyslog-probestick.conf)\nglobal(workDirectory="%s")\ninclude(file="%s")\n' \
		"$w/rsyslog" "$w/rsyslog-probestick.conf" >"$w/rsyslog.conf"
	rsyslogd -N1 -f "$w/rsyslog.conf" >"$w/rsyslog-check.log" 2>&1 ||
		{ fl_log "rsyslog refuses its configuration: $(tail -n 3 "$w/rsyslog-check.log")"; return 1; }
	rsyslogd -f "$w/rsyslog.conf" -i "$w/rsyslog.pid" >"$w/rsyslog.log" 2>&1 || return 1
	for _ in $(seq 1 50); do
		[ -s "$w/rsyslog.pid" ] && return 0
		sleep 0.1
	done
	fl_log "rsyslogd did not start: $(tail -n 5 "$w/rsyslog.log")"
	return 1
}

fl_dnsmasq_start() {
	local w=$1 ifname=$2 ip=$3 tree=$4 line
	shift 4
	fl_fill "$FL_TOP/docs/fleet/dnsmasq.conf" "$w/dnsmasq.conf" IF="$ifname" SERVER="$ip" \
		FIRST="${ip%.*}.50" LAST="${ip%.*}.99" NETBOOT="$tree" || return 1
	{
		echo "# tests/fleet: below WORK, nothing from the host, no upstream DNS"
		echo "pid-file=$w/dnsmasq.pid"
		echo "dhcp-leasefile=$w/dnsmasq.leases"
		echo "log-facility=$w/dnsmasq.log"
		echo "log-dhcp"
		echo "user=root"
		echo "no-resolv"
		echo "no-hosts"
		for line in "$@"; do echo "$line"; done
	} >>"$w/dnsmasq.conf"
	dnsmasq --test -C "$w/dnsmasq.conf" >/dev/null 2>&1 ||
		{ fl_log "dnsmasq refuses its configuration: $(dnsmasq --test -C "$w/dnsmasq.conf" 2>&1 | tail -n 2)"; return 1; }
	dnsmasq -C "$w/dnsmasq.conf" || return 1
}
