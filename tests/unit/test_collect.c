/* test_collect.c - the collector's pure parts: collect= and syslog= parsing, a run's URLs,
 * credentials kept out of messages, back-off, the spool's bookkeeping, RFC 5424/6587 framing,
 * BOOTIF= and ip=, and what an HTTP failure means for people. */
#include "check.h"
#include "collect/bootnet.h"
#include "collect/http.h"
#include "collect/retry.h"
#include "collect/spool.h"
#include "collect/syslog_frame.h"
#include "collect/upload.h"
#include "collect/url.h"
#include "core/config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>

static void test_url(void)
{
	struct ps_url u;
	char why[256], buf[1200];
	const char *segs[] = {"5254005000 03", "20261206T032508Z-quick", "report.json"};

	CHECK_INT(ps_url_parse("https://collector.lab/fleet", &u, why, sizeof(why)), 0);
	CHECK(u.tls);
	CHECK_STR(u.host, "collector.lab");
	CHECK_INT(u.port, 443);
	CHECK_STR(u.path, "/fleet/");
	/* no scheme: https; http only when named */
	CHECK_INT(ps_url_parse("collector.lab:8443", &u, why, sizeof(why)), 0);
	CHECK(u.tls);
	CHECK_INT(u.port, 8443);
	CHECK_STR(u.path, "/");
	CHECK_INT(ps_url_parse("http://10.0.0.1/r/", &u, why, sizeof(why)), 0);
	CHECK(!u.tls);
	CHECK_INT(u.port, 80);
	/* credentials in the URL: decoded, never in a message or the base */
	CHECK_INT(
	    ps_url_parse("https://fleet:p%40ss%3Aw@[2001:db8::1]:444/a/b/", &u, why, sizeof(why)),
	    0);
	CHECK_STR(u.user, "fleet");
	CHECK_STR(u.password, "p@ss:w");
	CHECK(u.host_v6);
	CHECK_STR(u.host, "2001:db8::1");
	ps_url_base(&u, buf, sizeof(buf));
	CHECK_STR(buf, "https://[2001:db8::1]:444/a/b/");
	/* refused, and why[] never holds the password */
	CHECK(ps_url_parse("ftp://h/", &u, why, sizeof(why)) < 0);
	CHECK(ps_url_parse("https://h/x?y=1", &u, why, sizeof(why)) < 0);
	CHECK(ps_url_parse("https://h/a/../b", &u, why, sizeof(why)) < 0);
	CHECK(ps_url_parse("https://h:0/", &u, why, sizeof(why)) < 0);
	CHECK(ps_url_parse("https://h:65536/", &u, why, sizeof(why)) < 0);
	CHECK(ps_url_parse("https://h_x/", &u, why, sizeof(why)) < 0);
	CHECK(ps_url_parse("https://a b/", &u, why, sizeof(why)) < 0);
	CHECK(ps_url_parse("https://u:secret@/", &u, why, sizeof(why)) < 0);
	CHECK(!strstr(why, "secret"));
	CHECK_STR(u.password, "");
	CHECK(ps_url_parse("https://u:sec%zzret@h/", &u, why, sizeof(why)) < 0);
	CHECK(!strstr(why, "sec"));
	CHECK(ps_url_parse("https://[::1/", &u, why, sizeof(why)) < 0);
	CHECK(ps_url_parse("https://h/%0a/", &u, why, sizeof(why)) < 0);
	/* a run's URLs: segments percent-encoded, the collector's tree as a stick's reports/ */
	CHECK_INT(ps_url_parse("https://c.lab/fleet/", &u, why, sizeof(why)), 0);
	CHECK_INT(ps_url_join(&u, segs, 3, false, buf, sizeof(buf)), 0);
	CHECK_STR(buf,
		  "https://c.lab:443/fleet/5254005000%2003/20261206T032508Z-quick/report.json");
	CHECK_INT(ps_url_join(&u, segs, 2, true, buf, sizeof(buf)), 0);
	CHECK_STR(buf, "https://c.lab:443/fleet/5254005000%2003/20261206T032508Z-quick/");
	{
		const char *dot[] = {".."}, *empty[] = {""};

		CHECK(ps_url_join(&u, dot, 1, true, buf, sizeof(buf)) < 0);
		CHECK(ps_url_join(&u, empty, 1, true, buf, sizeof(buf)) < 0);
		CHECK(ps_url_join(&u, segs, 3, false, buf, 40) == -ENAMETOOLONG);
	}
	ps_upload_part_name("report.json", buf, sizeof(buf));
	CHECK_STR(buf, ".report.json.part");
}

static void test_syslog_target(void)
{
	struct ps_syslog_target t;
	char why[256], buf[300];

	CHECK_INT(ps_syslog_target_parse("collector.lab", &t, why, sizeof(why)), 0);
	CHECK(t.tls);
	CHECK_INT(t.port, 6514);
	CHECK_INT(ps_syslog_target_parse("tcp://10.1.2.3", &t, why, sizeof(why)), 0);
	CHECK(!t.tls);
	CHECK_INT(t.port, 514);
	CHECK_INT(ps_syslog_target_parse("tls://[fd00::5]:7000/", &t, why, sizeof(why)), 0);
	ps_syslog_target_text(&t, buf, sizeof(buf));
	CHECK_STR(buf, "tls://[fd00::5]:7000");
	CHECK(ps_syslog_target_parse("udp://h", &t, why, sizeof(why)) < 0);
	CHECK(ps_syslog_target_parse("tls://u@h", &t, why, sizeof(why)) < 0);
	CHECK(ps_syslog_target_parse("tls://h/path", &t, why, sizeof(why)) < 0);
}

static void test_config_secrets(void)
{
	struct ps_config cfg;
	json_object *w = json_object_new_array();
	char line[600], why[256], out[300];
	const char text[] = "collect=https://fleet:hunter2@c.lab/fleet/\n"
			    "collect_password=correct horse\n"
			    "collect=https://x:hunter3@bad host/\n"
			    "collect_wait=5\n"
			    "syslog=udp://c.lab\n"
			    "ip=10.0.0.5::10.0.0.1:255.255.255.0::eth0:none:10.0.0.1\n";

	ps_config_defaults(&cfg);
	CHECK_STR(cfg.collect_wait, "10m");
	ps_config_parse_text(&cfg, text, sizeof(text) - 1, "probestick.cfg", w);
	CHECK_STR(cfg.collect, "https://fleet:hunter2@c.lab/fleet/");
	CHECK_STR(cfg.collect_password, "correct horse");
	CHECK_STR(cfg.collect_wait, "10m");
	CHECK_STR(cfg.syslog, "");
	CHECK_STR(cfg.ip, "10.0.0.5::10.0.0.1:255.255.255.0::eth0:none:10.0.0.1");
	CHECK_INT(json_object_array_length(w), 3);
	/* no warning quotes a password, the refused URL's or the one kept */
	for (size_t i = 0; i < json_object_array_length(w); i++) {
		const char *s = json_object_get_string(json_object_array_get_idx(w, i));

		CHECK(!strstr(s, "hunter"));
		CHECK(!strstr(s, "horse"));
	}
	CHECK(ps_config_set(&cfg, "collect_password", "a\x01", why, sizeof(why)) < 0);
	CHECK(!strstr(why, "a\x01"));
	CHECK(ps_config_set(&cfg, "collect_user", "a:b", why, sizeof(why)) < 0);
	CHECK_INT(ps_config_set(&cfg, "collect_wait", "0", why, sizeof(why)), 0);
	json_object_put(w);

	/* the kernel command line as the report keeps it */
	snprintf(line, sizeof(line),
		 "BOOT_IMAGE=/vmlinuz probestick.collect_password=s3cret probestick.collect="
		 "https://u:pw@c.lab/f/ xprobestick.collect_password=keep quiet");
	ps_config_redact_cmdline(line);
	CHECK_STR(line, "BOOT_IMAGE=/vmlinuz probestick.collect_password=* "
			"probestick.collect=https://*@c.lab/f/ xprobestick.collect_password=keep "
			"quiet");
	snprintf(line, sizeof(line), "probestick.collect=https://c.lab/f/ a=b@c");
	ps_config_redact_cmdline(line);
	CHECK_STR(line, "probestick.collect=https://c.lab/f/ a=b@c");
	ps_config_redact_url("https://u:p@w@h/x@y", out, sizeof(out));
	CHECK_STR(out, "https://h/x@y");
	ps_config_redact_url("h/x", out, sizeof(out));
	CHECK_STR(out, "h/x");
}

static void test_retry(void)
{
	struct ps_retry r;
	uint32_t a = ps_retry_seed("525400f1ee01"), b = ps_retry_seed("525400f1ee02");
	double prev = 0;
	int differ = 0;

	CHECK(a != b);
	for (unsigned int n = 1; n <= 12; n++) {
		double d = ps_retry_delay(a, n), base = n > 5 ? 30 : (double)(1u << (n - 1));

		CHECK(d >= 0.75 * base - 1e-9 && d <= 1.25 * base + 1e-9);
		CHECK(d == ps_retry_delay(a, n)); /* the same machine, the same wait */
		differ += d != ps_retry_delay(b, n);
		if (n <= 5)
			CHECK(d > prev * 0.75 * 2 / 1.25 - 1e-9);
		prev = d;
	}
	CHECK(differ >= 10); /* two machines do not come back in step */
	ps_retry_init(&r, a);
	CHECK(ps_retry_due(&r, 0));
	CHECK(ps_retry_fail(&r, 100) > 0);
	CHECK(!ps_retry_due(&r, 100.5));
	CHECK(ps_retry_due(&r, 102));
	ps_retry_fail(&r, 102);
	CHECK_INT(r.failed, 2);
	ps_retry_ok(&r);
	CHECK_INT(r.failed, 0);
	CHECK(ps_retry_due(&r, 0));
	CHECK_INT(r.tries, 3);
	CHECK_INT(r.failures, 2);
}

static int next(const struct ps_spool *s, double now)
{
	double wait;

	return ps_spool_next(s, now, &wait);
}

static void test_spool(void)
{
	struct ps_spool s;
	double wait;

	ps_spool_init(&s, 1);
	CHECK_INT(ps_spool_next(&s, 0, &wait), -1);
	CHECK(wait > 600);
	CHECK(!ps_spool_done(&s));
	/* during the plan: only the live stream, its newest version */
	ps_spool_written(&s, false);
	ps_spool_written(&s, false);
	CHECK_INT(next(&s, 100), PS_SPOOL_OCP);
	CHECK_INT(s.f[PS_SPOOL_OCP].written, 2);
	ps_spool_delivered(&s, PS_SPOOL_OCP, 1, 10, 100);
	/* version 2 is newer, but the live stream waits its turn */
	CHECK_INT(ps_spool_next(&s, 110, &wait), -1);
	CHECK(wait > 19.9 && wait < 20.1);
	CHECK_INT(next(&s, 130), PS_SPOOL_OCP);
	ps_spool_delivered(&s, PS_SPOOL_OCP, 2, 20, 131);
	ps_spool_delivered(&s, PS_SPOOL_OCP, 1, 10, 132); /* an older one late: ignored */
	CHECK_INT(s.f[PS_SPOOL_OCP].bytes, 20);
	CHECK_INT(next(&s, 200), -1);
	CHECK_INT(ps_spool_pending(&s), 0);
	CHECK(!ps_spool_done(&s));
	/* the end: every file at once, report.json last */
	ps_spool_written(&s, true);
	CHECK_INT(ps_spool_pending(&s), 4);
	CHECK_INT(next(&s, 140), PS_SPOOL_OCP);
	ps_spool_delivered(&s, PS_SPOOL_OCP, 3, 30, 140);
	CHECK_INT(next(&s, 140), PS_SPOOL_TXT);
	ps_spool_delivered(&s, PS_SPOOL_TXT, 1, 30, 140);
	CHECK_INT(next(&s, 140), PS_SPOOL_HTML);
	ps_spool_delivered(&s, PS_SPOOL_HTML, 1, 30, 140);
	CHECK_INT(next(&s, 140), PS_SPOOL_JSON);
	ps_spool_delivered(&s, PS_SPOOL_JSON, 1, 30, 141);
	CHECK(ps_spool_done(&s));
	/* the folder rewritten after a failed delivery: all of it again, json still last */
	ps_spool_written(&s, true);
	CHECK(!ps_spool_done(&s));
	ps_spool_delivered(&s, PS_SPOOL_OCP, 4, 30, 150);
	ps_spool_delivered(&s, PS_SPOOL_HTML, 2, 30, 150);
	CHECK_INT(next(&s, 150), PS_SPOOL_TXT);
	CHECK_STR(ps_spool_names[PS_SPOOL_JSON], "report.json");
}

static void test_syslog_frame(void)
{
	const char ocp[] = "{\"testStepArtifact\":{\"diagnosis\":{\"type\":\"FAIL\"}}}";
	struct ps_syslog_msg m = {
	    .facility = PS_SYSLOG_LOCAL0,
	    .severity = 6,
	    .timestamp = "2026-01-31T09:30:42.125Z",
	    .hostname = "525400f1ee01",
	    .app = "probestick",
	    .procid = "20261206T032508Z-quick",
	    .msgid = "ocp",
	    .msg = "{\"a\":1}",
	    .msglen = 7,
	};
	char ts[64], *f, want[300];
	size_t len;

	f = ps_syslog_frame(&m, &len);
	snprintf(want, sizeof(want), "%s",
		 "<134>1 2026-01-31T09:30:42.125Z 525400f1ee01 probestick 20261206T032508Z-quick "
		 "ocp - {\"a\":1}");
	/* octet counting: the message's length in bytes, a space, the message */
	CHECK_INT(atoi(f), strlen(want));
	CHECK(strncmp(f, "92 <134>1 ", 10) == 0);
	CHECK_STR(f + 3, want);
	CHECK_INT(len, strlen(want) + 3);
	free(f);
	/* header fields: no spaces or controls, RFC lengths, "-" when empty */
	m.hostname = "a b\tc";
	m.procid = "";
	m.timestamp = NULL;
	m.severity = 9;
	m.facility = 99;
	m.app = "0123456789012345678901234567890123456789012345678901234567890";
	f = ps_syslog_frame(&m, &len);
	CHECK(strstr(f, "<134>1 - abc 012345678901234567890123456789012345678901234567 - ocp - ") !=
	      NULL);
	free(f);
	CHECK_INT(ps_syslog_severity(ocp, sizeof(ocp) - 1), 4);
	CHECK_INT(ps_syslog_severity("{\"testStepArtifact\":{\"error\":{}}}", 33), 3);
	CHECK_INT(
	    ps_syslog_severity("{\"testRunArtifact\":{\"log\":{\"severity\":\"WARNING\"}}}", 51),
	    4);
	CHECK_INT(ps_syslog_severity("{\"testRunArtifact\":{\"testRunStart\":{}}}", 39), 6);
	CHECK_INT(ps_syslog_severity("not json", 8), 6);
	ps_syslog_time(1769851842.125, ts, sizeof(ts));
	CHECK_STR(ts, "2026-01-31T09:30:42.125Z");
	ps_syslog_time(-1, ts, sizeof(ts));
	CHECK_STR(ts, "-");
}

static void test_bootnet(void)
{
	struct ps_bootnet b;
	unsigned char mac[6];
	char why[256], a[32];

	CHECK_INT(ps_bootnet_parse_bootif("01-52-54-00-F1-ee-01", mac), 0);
	CHECK(mac[0] == 0x52 && mac[3] == 0xf1 && mac[5] == 0x01);
	CHECK_INT(ps_bootnet_parse_bootif("01-52:54:00:f1:ee:02", mac), 0); /* GRUB's */
	CHECK(mac[5] == 0x02);
	CHECK_INT(ps_bootnet_parse_bootif("52:54:00:f1:ee:03", mac), 0);
	CHECK(ps_bootnet_parse_bootif("06-52-54-00-f1-ee-01", mac) < 0);
	CHECK(ps_bootnet_parse_bootif("01-52-54-00-f1", mac) < 0);
	CHECK(ps_bootnet_parse_bootif("01-52-54-00-f1-ee-0g", mac) < 0);

	CHECK_INT(ps_bootnet_parse_ip("dhcp", &b, why, sizeof(why)), 0);
	CHECK_INT(b.how, PS_BOOTNET_DHCP);
	CHECK_INT(ps_bootnet_parse_ip("off", &b, why, sizeof(why)), 0);
	CHECK_INT(b.how, PS_BOOTNET_OFF);
	CHECK_INT(ps_bootnet_parse_ip("10.0.0.5::10.0.0.1:255.255.255.0::eth1:none:10.0.0.53", &b,
				      why, sizeof(why)),
		  0);
	CHECK_INT(b.how, PS_BOOTNET_STATIC);
	CHECK_INT(b.prefix, 24);
	CHECK(b.has_gw);
	CHECK_STR(b.device, "eth1");
	CHECK_INT(b.ndns, 1);
	CHECK_STR(inet_ntop(AF_INET, &b.dns[0], a, sizeof(a)), "10.0.0.53");
	/* pxelinux's IPAPPEND 1: client:server:gw:netmask */
	CHECK_INT(ps_bootnet_parse_ip("198.18.0.60:198.18.0.1:198.18.0.1:255.255.255.0", &b, why,
				      sizeof(why)),
		  0);
	CHECK_INT(b.prefix, 24);
	CHECK_INT(ps_bootnet_parse_ip("10.1.2.3/16:::::", &b, why, sizeof(why)), 0);
	CHECK_INT(b.prefix, 16);
	CHECK(!b.has_gw);
	CHECK_INT(ps_bootnet_parse_ip(":::::eth0:dhcp", &b, why, sizeof(why)), 0);
	CHECK_INT(b.how, PS_BOOTNET_DHCP);
	CHECK_STR(b.device, "eth0");
	CHECK(ps_bootnet_parse_ip("10.0.0.5", &b, why, sizeof(why)) < 0);
	CHECK(ps_bootnet_parse_ip("10.0.0.5:::", &b, why, sizeof(why)) < 0); /* no netmask */
	CHECK(ps_bootnet_parse_ip("10.0.0.5/24::::::::::", &b, why, sizeof(why)) < 0);
	CHECK(ps_bootnet_parse_ip("10.0.0.5::1.2.3:255.255.255.0", &b, why, sizeof(why)) < 0);
	CHECK(ps_bootnet_parse_ip("10.0.0.5:::255.0.255.0", &b, why, sizeof(why)) < 0);
	CHECK(ps_bootnet_parse_ip("10.0.0.5/8:::255.255.255.0", &b, why, sizeof(why)) < 0);
	CHECK(ps_bootnet_parse_ip(":::::eth0:rarp", &b, why, sizeof(why)) < 0);

	/* the command line: BOOTIF, ip=, then probestick.ip= over ip= */
	ps_bootnet_from_cmdline("quiet BOOTIF=01-52-54-00-f1-ee-01 console=ttyS0", "", &b, why,
				sizeof(why));
	CHECK(b.has_mac && b.mac[5] == 1);
	CHECK_INT(b.how, PS_BOOTNET_AUTO);
	CHECK_STR(why, "");
	ps_bootnet_from_cmdline("ip=10.0.0.9:::255.0.0.0 BOOTIF=zz", "dhcp", &b, why, sizeof(why));
	CHECK(!b.has_mac);
	CHECK_INT(b.how, PS_BOOTNET_DHCP);
	CHECK_STR(b.ip_from, "probestick.ip=");
	CHECK(strstr(why, "BOOTIF") != NULL);
	ps_bootnet_from_cmdline("ip=bogus", "", &b, why, sizeof(why));
	CHECK_INT(b.how, PS_BOOTNET_AUTO);
	CHECK(strstr(why, "ip=bogus") != NULL);
}

static void test_http_words(void)
{
	struct ps_http_result r = {0};
	char msg[600];

	CHECK_INT(ps_http_classify(CURLE_OK, 201), PS_HTTP_OK);
	CHECK_INT(ps_http_classify(CURLE_OK, 204), PS_HTTP_OK);
	CHECK_INT(ps_http_classify(CURLE_OK, 401), PS_HTTP_AUTH);
	CHECK_INT(ps_http_classify(CURLE_OK, 403), PS_HTTP_AUTH);
	CHECK_INT(ps_http_classify(CURLE_OK, 409), PS_HTTP_REFUSED);
	CHECK_INT(ps_http_classify(CURLE_OK, 301), PS_HTTP_REFUSED);
	CHECK_INT(ps_http_classify(CURLE_OK, 429), PS_HTTP_UNREACHABLE);
	CHECK_INT(ps_http_classify(CURLE_OK, 503), PS_HTTP_SERVER);
	CHECK_INT(ps_http_classify(CURLE_COULDNT_CONNECT, 0), PS_HTTP_UNREACHABLE);
	CHECK_INT(ps_http_classify(CURLE_OPERATION_TIMEDOUT, 0), PS_HTTP_UNREACHABLE);
	CHECK_INT(ps_http_classify(CURLE_PEER_FAILED_VERIFICATION, 0), PS_HTTP_TLS);
	CHECK_INT(ps_http_classify(CURLE_SSL_CACERT_BADFILE, 0), PS_HTTP_TLS);
	r.fail = PS_HTTP_AUTH;
	r.status = 401;
	ps_http_explain(&r, "https://c:443/f/", "/ca.pem", msg, sizeof(msg));
	CHECK(strstr(msg, "refused the user name or password (HTTP 401)") != NULL);
	r.fail = PS_HTTP_TLS;
	r.code = CURLE_PEER_FAILED_VERIFICATION;
	snprintf(r.why, sizeof(r.why), "SSL certificate problem: unable to get local issuer");
	ps_http_explain(&r, "https://c:443/f/", "/ca.pem", msg, sizeof(msg));
	CHECK(strstr(msg,
		     "is not the collector: its certificate is not signed by the CA in /ca.pem") !=
	      NULL);
	r.code = CURLE_SSL_CACERT_BADFILE;
	ps_http_explain(&r, "https://c:443/f/", "", msg, sizeof(msg));
	CHECK(strstr(msg, "no CA certificate to check") != NULL);
	r.fail = PS_HTTP_REFUSED;
	r.status = 409;
	ps_http_explain(&r, "https://c:443/f/", "", msg, sizeof(msg));
	CHECK(strstr(msg, "has no such folder") != NULL);
}

int main(void)
{
	test_url();
	test_syslog_target();
	test_config_secrets();
	test_retry();
	test_spool();
	test_syslog_frame();
	test_bootnet();
	test_http_words();
	return check_done("test_collect");
}
