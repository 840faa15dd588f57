/* report_text.c - render a report document as plain text for an 80-column console.
 * Works from the JSON only, so report.txt always says what report.json says. */
#include "kcapture.h"
#include "report.h"
#include "sampler.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH 80

static const char *s_or(json_object *obj, const char *key, const char *dflt)
{
	const char *s = ps_json_str(obj, key);

	return s && *s ? s : dflt;
}

static bool has_int(json_object *obj, const char *key, int64_t *v)
{
	json_object *o = ps_json_get(obj, key);

	if (!o ||
	    !(json_object_is_type(o, json_type_int) || json_object_is_type(o, json_type_double)))
		return false;
	*v = json_object_get_int64(o);
	return true;
}

static bool has_num(json_object *obj, const char *key, double *v)
{
	json_object *o = ps_json_get(obj, key);

	if (!o ||
	    !(json_object_is_type(o, json_type_int) || json_object_is_type(o, json_type_double)))
		return false;
	*v = json_object_get_double(o);
	return true;
}

/* 1 = true, 0 = false, -1 = null or missing */
static int tri(json_object *obj, const char *key)
{
	json_object *o = ps_json_get(obj, key);

	if (!o || !json_object_is_type(o, json_type_boolean))
		return -1;
	return json_object_get_boolean(o) ? 1 : 0;
}

static json_object *arr(json_object *obj, const char *key)
{
	json_object *o = ps_json_get(obj, key);

	return o && json_object_is_type(o, json_type_array) ? o : NULL;
}

static size_t arr_len(json_object *a)
{
	return a ? json_object_array_length(a) : 0;
}

/* Decimal units for drives (as their makers label them), binary for memory. */
static void size_text(char *buf, size_t len, int64_t bytes, bool binary)
{
	static const char *const si[] = {"B", "kB", "MB", "GB", "TB", "PB"};
	static const char *const iec[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	double v = (double)bytes, base = binary ? 1024.0 : 1000.0;
	int u = 0;

	while (v >= base && u < 5) {
		v /= base;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%" PRId64 " B", bytes);
	else
		snprintf(buf, len, "%.*f %s",
			 v < 10	   ? 2
			 : v < 100 ? 1
				   : 0,
			 v, binary ? iec[u] : si[u]);
}

static void fit(char *dst, size_t width, const char *src)
{
	size_t n = strlen(src);

	if (n <= width) {
		memcpy(dst, src, n + 1);
		return;
	}
	memcpy(dst, src, width - 1);
	dst[width - 1] = '~'; /* marks a cut so a reader knows to look in report.json */
	dst[width] = '\0';
}

/*
 * Print text starting at column col, wrapped at WIDTH with continuation
 * lines indented by indent. Runs of spaces are kept (they align columns).
 */
static void wrap(FILE *f, int col, int indent, const char *text)
{
	const char *p = text;

	while (*p) {
		size_t sp = strspn(p, " ");
		size_t word = strcspn(p + sp, " ");

		if (word == 0)
			break;
		if (col > indent && col + (int)(sp + word) > WIDTH) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else {
			fprintf(f, "%*s", (int)sp, "");
			col += (int)sp;
		}
		fwrite(p + sp, 1, word, f);
		col += (int)word;
		p += sp + word;
	}
	fputc('\n', f);
}

static void heading(FILE *f, const char *title)
{
	fprintf(f, "\n%s\n", title);
	for (size_t i = 0; i < strlen(title); i++)
		fputc('-', f);
	fputc('\n', f);
}

static void header(FILE *f, json_object *r, unsigned int flags)
{
	json_object *m = ps_json_get(r, "machine"), *ps = ps_json_get(r, "probestick");
	int64_t v, logical, cores, pkgs;
	double d;
	char buf[64];
	json_object *abi = ps_json_get(ps, "module_abi");
	char line[1024];

	if (!(flags & PS_TEXT_INVENTORY)) {
		fprintf(f, "probestick report  plan %s  %s\n", s_or(r, "plan", "?"),
			tri(r, "complete") == 1 ? "complete"
						: "INCOMPLETE (the run was cut off or is running)");
		fprintf(f, "created   %s   probestick %s\n", s_or(r, "created", "?"),
			s_or(ps, "version", "?"));
	}
	snprintf(line, sizeof(line), "machine   %s %s  (id %s)", s_or(m, "vendor", "?"),
		 s_or(m, "product", "?"), s_or(r, "machine_id", s_or(m, "id", "?")));
	wrap(f, 0, 10, line);
	snprintf(line, sizeof(line), "serial    %s   uuid %s", s_or(m, "serial", "-"),
		 s_or(m, "uuid", "-"));
	wrap(f, 0, 10, line);
	if (ps_json_str(m, "board_vendor") || ps_json_str(m, "board_product"))
		fprintf(f, "board     %s %s\n", s_or(m, "board_vendor", ""),
			s_or(m, "board_product", ""));
	fprintf(f, "bios      %s %s (%s)\n", s_or(m, "bios_vendor", "?"),
		s_or(m, "bios_version", "?"), s_or(m, "bios_date", "?"));
	snprintf(line, sizeof(line), "cpu       %s", s_or(m, "cpu_model", "?"));
	wrap(f, 0, 10, line);
	if (has_int(m, "cpu_logical", &logical)) {
		fprintf(f, "          %" PRId64 " logical", logical);
		if (has_int(m, "cpu_cores", &cores))
			fprintf(f, ", %" PRId64 " cores", cores);
		if (has_int(m, "cpu_packages", &pkgs))
			fprintf(f, ", %" PRId64 " package%s", pkgs, pkgs == 1 ? "" : "s");
		fprintf(f, ", microcode %s\n", s_or(m, "microcode", "?"));
	}
	if (has_int(m, "memory_bytes", &v)) {
		size_text(buf, sizeof(buf), v, true);
		fprintf(f, "memory    %s\n", buf);
	}
	fprintf(f, "kernel    %s\n", s_or(ps, "kernel", "?"));
	if (abi && json_object_is_type(abi, json_type_int))
		snprintf(line, sizeof(line), "module    %s (ABI %d)",
			 s_or(ps, "module_status", "?"), json_object_get_int(abi));
	else
		snprintf(line, sizeof(line), "module    %s", s_or(ps, "module_status", "?"));
	/* the status can name a long path: wrap it */
	wrap(f, 0, 10, line);
	(void)d;
}

static void gts(char *buf, size_t len, json_object *link, const char *speed, const char *width)
{
	double s;
	int64_t w;

	if (!has_num(link, speed, &s) || !has_int(link, width, &w)) {
		snprintf(buf, len, "?");
		return;
	}
	snprintf(buf, len, "%g GT/s x%" PRId64, s, w);
}

static void pcie_table(FILE *f, json_object *r)
{
	json_object *pcie = arr(r, "pcie");
	size_t n = arr_len(pcie), downgraded = 0;
	char title[64];

	snprintf(title, sizeof(title), "PCI functions (%zu)", n);
	heading(f, title);
	if (!n) {
		fprintf(f, "none found\n");
		return;
	}
	fprintf(f, "%-12s %-6s %-9s %-10s %s\n", "ADDRESS", "CLASS", "VEN:DEV", "DRIVER",
		"LINK trained of capable");
	for (size_t i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(pcie, i);
		json_object *link = ps_json_get(p, "link");
		char addr[16], drv[16], ids[16], lk[80], cap[32], cur[32];
		const char *a = s_or(p, "address", "?");

		/* Domain 0000 is the rule; drop it to keep the row narrow. */
		fit(addr, 12, strncmp(a, "0000:", 5) == 0 ? a + 5 : a);
		fit(drv, 10, s_or(p, "driver", "-"));
		snprintf(ids, sizeof(ids), "%.4s:%.4s", s_or(p, "vendor_id", "????"),
			 s_or(p, "device_id", "????"));
		if (link && json_object_is_type(link, json_type_object)) {
			gts(cur, sizeof(cur), link, "speed_gts", "width");
			gts(cap, sizeof(cap), link, "cap_speed_gts", "cap_width");
			snprintf(lk, sizeof(lk), "%s of %s", cur, cap);
		} else {
			snprintf(lk, sizeof(lk), "%s",
				 tri(p, "is_pcie") == 1 ? "PCIe (no link)" : "PCI (no link)");
		}
		if (tri(p, "downgraded") == 1)
			downgraded++;
		fprintf(f, "%-12s %-6.6s %-9s %-10s %s%s\n", addr, s_or(p, "class", "?"), ids, drv,
			lk, tri(p, "downgraded") == 1 ? " downgraded" : "");
	}
	if (downgraded)
		fprintf(f, "%zu link%s trained below what both ends support (downgraded)\n",
			downgraded, downgraded == 1 ? "" : "s");
}

static void drives_table(FILE *f, json_object *r)
{
	json_object *drives = arr(r, "drives");
	size_t n = arr_len(drives);
	char title[64];

	snprintf(title, sizeof(title), "Drives (%zu)", n);
	heading(f, title);
	if (!n) {
		fprintf(f, "none found\n");
		return;
	}
	fprintf(f, "%-9s %-7s %-9s %-9s %-16s %s\n", "NAME", "BUS", "SIZE", "SECTORS", "LINK",
		"KIND");
	for (size_t i = 0; i < n; i++) {
		json_object *d = json_object_array_get_idx(drives, i);
		char name[16], size[24], sect[24], link[24], line2[256];
		int64_t v, lo, ph;
		int rot = tri(d, "rotational");

		fit(name, 9, s_or(d, "name", "?"));
		if (has_int(d, "size_bytes", &v))
			size_text(size, sizeof(size), v, false);
		else
			snprintf(size, sizeof(size), "?");
		if (has_int(d, "logical_sector", &lo) && has_int(d, "physical_sector", &ph))
			snprintf(sect, sizeof(sect), "%" PRId64 "/%" PRId64, lo, ph);
		else
			snprintf(sect, sizeof(sect), "?");
		fit(link, 16, s_or(d, "link", "-"));
		fprintf(f, "%-9s %-7.7s %-9s %-9s %-16s %s%s\n", name, s_or(d, "transport", "?"),
			size, sect, link,
			rot == 1   ? "HDD"
			: rot == 0 ? "SSD"
				   : "?",
			tri(d, "removable") == 1 ? " removable" : "");
		snprintf(line2, sizeof(line2), "%s%s, serial %s, firmware %s",
			 tri(d, "boot_device") == 1 ? "BOOT STICK (never a test target): " : "",
			 s_or(d, "model", "?"), s_or(d, "serial", "?"), s_or(d, "firmware", "?"));
		fprintf(f, "%10s", "");
		wrap(f, 10, 10, line2);
	}
}

static void nics_table(FILE *f, json_object *r)
{
	json_object *nics = arr(r, "nics");
	size_t n = arr_len(nics);
	char title[64];

	snprintf(title, sizeof(title), "Network interfaces (%zu)", n);
	heading(f, title);
	if (!n) {
		fprintf(f, "none found\n");
		return;
	}
	fprintf(f, "%-10s %-9s %-17s %-20s %5s %s\n", "NAME", "DRIVER", "MAC", "LINK", "MTU",
		"QUEUES");
	for (size_t i = 0; i < n; i++) {
		json_object *c = json_object_array_get_idx(nics, i);
		char name[16], drv[16], link[40], q[32];
		int64_t speed, mtu, rx, tx;
		int carrier = tri(c, "carrier");
		const char *duplex = ps_json_str(c, "duplex");

		fit(name, 10, s_or(c, "name", "?"));
		fit(drv, 9, s_or(c, "driver", "-"));
		if (carrier == 1 && has_int(c, "speed_mbps", &speed))
			snprintf(link, sizeof(link), "up %" PRId64 " Mb/s %s", speed,
				 duplex ? duplex : "");
		else if (carrier == 1)
			snprintf(link, sizeof(link), "up");
		else if (carrier == 0)
			snprintf(link, sizeof(link), "no carrier");
		else
			snprintf(link, sizeof(link), "%s", s_or(c, "operstate", "?"));
		if (!has_int(c, "mtu", &mtu))
			mtu = 0;
		if (has_int(c, "rx_queues", &rx) && has_int(c, "tx_queues", &tx))
			snprintf(q, sizeof(q), "rx %" PRId64 " tx %" PRId64, rx, tx);
		else
			snprintf(q, sizeof(q), "?");
		fprintf(f, "%-10s %-9s %-17.17s %-20.20s %5" PRId64 " %s\n", name, drv,
			s_or(c, "mac", "?"), link, mtu, q);
	}
}

static void memory_table(FILE *f, json_object *r)
{
	json_object *mem = ps_json_get(r, "memory");
	json_object *dimms = arr(mem, "dimms");
	int64_t total, st, sp, v;
	char buf[32];

	heading(f, "Memory");
	if (has_int(mem, "total_bytes", &total)) {
		size_text(buf, sizeof(buf), total, true);
		fprintf(f, "total %s", buf);
	} else {
		fprintf(f, "total ?");
	}
	if (has_int(mem, "slots_total", &st) && has_int(mem, "slots_populated", &sp))
		fprintf(f, ", %" PRId64 " of %" PRId64 " slots populated", sp, st);
	fputc('\n', f);
	if (!arr_len(dimms))
		return;
	fprintf(f, "%-16s %-9s %-6s %-15s %-12s %s\n", "SLOT", "SIZE", "TYPE", "SPEED MT/s",
		"MAKER", "PART");
	for (size_t i = 0; i < arr_len(dimms); i++) {
		json_object *d = json_object_array_get_idx(dimms, i);
		char slot[20], speed[32], maker[16], part[24];
		int64_t s1, s2;

		fit(slot, 16, s_or(d, "locator", "?"));
		if (tri(d, "populated") == 0) {
			fprintf(f, "%-16s empty\n", slot);
			continue;
		}
		if (has_int(d, "size_bytes", &v))
			size_text(buf, sizeof(buf), v, true);
		else
			snprintf(buf, sizeof(buf), "?");
		if (has_int(d, "speed_mts", &s1) && has_int(d, "configured_speed_mts", &s2))
			snprintf(speed, sizeof(speed), "%" PRId64 " (at %" PRId64 ")", s1, s2);
		else if (has_int(d, "speed_mts", &s1))
			snprintf(speed, sizeof(speed), "%" PRId64, s1);
		else
			snprintf(speed, sizeof(speed), "?");
		fit(maker, 12, s_or(d, "manufacturer", "?"));
		fit(part, 20, s_or(d, "part_number", "?"));
		fprintf(f, "%-16s %-9s %-6.6s %-15s %-12s %s\n", slot, buf, s_or(d, "type", "?"),
			speed, maker, part);
	}
}

static void steps_list(FILE *f, json_object *r)
{
	json_object *steps = arr(r, "steps");
	size_t n = arr_len(steps);

	heading(f, "Steps");
	if (!n) {
		fprintf(f, "none run yet\n");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		json_object *s = json_object_array_get_idx(steps, i);
		json_object *findings = arr(s, "findings");
		const char *reason = ps_json_str(s, "reason");
		double dur = 0;
		char line[160];

		has_num(s, "duration_s", &dur);
		snprintf(line, sizeof(line), "%-16s %-8s %7.1f s%s%s", s_or(s, "name", "?"),
			 s_or(s, "status", "?"), dur, reason ? "  " : "", reason ? reason : "");
		wrap(f, 0, 37, line);
		for (size_t j = 0; j < arr_len(findings); j++) {
			json_object *fi = json_object_array_get_idx(findings, j);
			char msg[1200];

			snprintf(msg, sizeof(msg), "%-4s %s: %s%s%s%s", s_or(fi, "severity", "?"),
				 s_or(fi, "subject", "-"), s_or(fi, "message", ""),
				 ps_json_str(fi, "rule") ? " [" : "", s_or(fi, "rule", ""),
				 ps_json_str(fi, "rule") ? "]" : "");
			fprintf(f, "    ");
			wrap(f, 4, 9, msg);
		}
		if (ps_json_get(s, "probes"))
			ps_kcapture_text(f, ps_json_get(s, "probes"), 5);
		if (ps_json_get(s, "load"))
			ps_load_text(f, ps_json_get(s, "load"), 5);
	}
}

static void coldplug_line(FILE *f, json_object *r)
{
	json_object *c = ps_json_get(r, "coldplug");
	json_object *failed = arr(c, "failed");
	double dur = 0;

	if (!c || !json_object_is_type(c, json_type_object))
		return;
	has_num(c, "duration_s", &dur);
	heading(f, "Drivers (coldplug)");
	fprintf(f, "%zu modules loaded, %zu failed, %zu found no device, in %.1f s\n",
		arr_len(arr(c, "loaded")), arr_len(failed), arr_len(arr(c, "unused")), dur);
	for (size_t i = 0; i < arr_len(failed); i++) {
		json_object *e = json_object_array_get_idx(failed, i);
		char msg[300];

		snprintf(msg, sizeof(msg), "failed: %s: %s", s_or(e, "module", "?"),
			 s_or(e, "error", "?"));
		fprintf(f, "  ");
		wrap(f, 2, 4, msg);
	}
}

static void warnings_list(FILE *f, json_object *r)
{
	json_object *w = arr(r, "warnings");

	if (!arr_len(w))
		return;
	heading(f, "Warnings");
	for (size_t i = 0; i < arr_len(w); i++) {
		json_object *s = json_object_array_get_idx(w, i);

		fprintf(f, "- ");
		wrap(f, 2, 2,
		     json_object_is_type(s, json_type_string) ? json_object_get_string(s) : "?");
	}
}

char *ps_report_text(json_object *report, unsigned int flags)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return strdup("probestick: out of memory rendering the report\n");
	header(f, report, flags);
	pcie_table(f, report);
	drives_table(f, report);
	nics_table(f, report);
	memory_table(f, report);
	if (!(flags & PS_TEXT_INVENTORY)) {
		coldplug_line(f, report);
		steps_list(f, report);
		warnings_list(f, report);
	}
	fclose(f);
	return buf ? buf : strdup("");
}
