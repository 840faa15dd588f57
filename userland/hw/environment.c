/*
 * environment.c - what can change a figure besides the hardware itself:
 * the CPU frequency policy (cpufreq driver, governor, limits, boost, energy
 * preference), the idle driver, SMT, the speculative-execution mitigations,
 * transparent huge pages, and the temperatures the hwmon chips report.
 * Everything comes from sysfs below root; a missing file stays unknown.
 */
#include "lib/util.h"
#include "hw/hw_util.h"
#include "hw/inventory.h"
#include "lib/json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CPU "/sys/devices/system/cpu"

static void read_text(const char *root, const char *rel, char *buf, size_t len)
{
	char path[4096];

	if (ps_read_str(ps_path(path, sizeof(path), root, "%s", rel), buf, len) < 0)
		buf[0] = '\0';
}

static int64_t read_khz(const char *root, const char *cpu, const char *file)
{
	char path[4096];
	int64_t v;

	ps_path(path, sizeof(path), root, CPU "/%s/cpufreq/%s", cpu, file);
	return ps_read_s64(path, &v) == 0 && v >= 0 ? v : PS_UNKNOWN;
}

static ps_tri read_tri(const char *root, const char *rel, bool inverted)
{
	char path[4096];
	int64_t v;

	if (ps_read_s64(ps_path(path, sizeof(path), root, "%s", rel), &v) < 0)
		return PS_TRI_UNKNOWN;
	return (ps_tri)((v != 0) != inverted);
}

/* "always madvise [never]" gives "never". */
static void chosen_word(char *s)
{
	char *a = strchr(s, '['), *b = a ? strchr(a, ']') : NULL;

	if (!a || !b)
		return;
	memmove(s, a + 1, (size_t)(b - a - 1));
	s[b - a - 1] = '\0';
}

/* Add word to a comma list unless it is there. */
static void add_word(char *list, size_t len, const char *word)
{
	size_t n = strlen(word), o = strlen(list);

	for (const char *p = list; *p;) {
		size_t k = strcspn(p, ",");

		if (k == n && strncmp(p, word, n) == 0)
			return;
		p += k + (p[k] == ',');
	}
	if (o + n + 2 < len)
		snprintf(list + o, len - o, "%s%s", o ? "," : "", word);
}

static void cpufreq(const char *root, struct ps_environment *env)
{
	char dir[4096], cpu0[32] = "";
	struct ps_dirlist cpus;

	ps_path(dir, sizeof(dir), root, CPU);
	if (ps_dir_list(dir, &cpus) < 0)
		return;
	for (size_t i = 0; i < cpus.n; i++) {
		const char *c = cpus.names[i];
		char rel[256], gov[64];

		if (strncmp(c, "cpu", 3) || c[3] < '0' || c[3] > '9')
			continue;
		snprintf(rel, sizeof(rel), CPU "/%s/cpufreq/scaling_governor", c);
		read_text(root, rel, gov, sizeof(gov));
		if (!gov[0])
			continue;
		add_word(env->governor, sizeof(env->governor), gov);
		if (!cpu0[0])
			snprintf(cpu0, sizeof(cpu0), "%s", c);
	}
	ps_dir_free(&cpus);
	if (!cpu0[0])
		return;
	{
		char rel[256];

		snprintf(rel, sizeof(rel), CPU "/%s/cpufreq/scaling_driver", cpu0);
		read_text(root, rel, env->cpufreq_driver, sizeof(env->cpufreq_driver));
		snprintf(rel, sizeof(rel), CPU "/%s/cpufreq/energy_performance_preference", cpu0);
		read_text(root, rel, env->epp, sizeof(env->epp));
	}
	env->min_khz = read_khz(root, cpu0, "scaling_min_freq");
	env->max_khz = read_khz(root, cpu0, "scaling_max_freq");
	env->hw_min_khz = read_khz(root, cpu0, "cpuinfo_min_freq");
	env->hw_max_khz = read_khz(root, cpu0, "cpuinfo_max_freq");
	/* acpi-cpufreq says boost; intel_pstate says the opposite, no_turbo */
	env->boost = read_tri(root, CPU "/cpufreq/boost", false);
	if (env->boost == PS_TRI_UNKNOWN)
		env->boost = read_tri(root, CPU "/intel_pstate/no_turbo", true);
}

static void mitigations(const char *root, struct ps_environment *env)
{
	char dir[4096];
	struct ps_dirlist l;

	ps_path(dir, sizeof(dir), root, CPU "/vulnerabilities");
	if (ps_dir_list(dir, &l) < 0)
		return;
	for (size_t i = 0; i < l.n && env->n_mitigations < PS_ENV_ITEMS; i++) {
		struct ps_env_item *m = &env->mitigations[env->n_mitigations];
		char rel[256], v[sizeof(m->value)];

		snprintf(rel, sizeof(rel), CPU "/vulnerabilities/%.200s", l.names[i]);
		read_text(root, rel, v, sizeof(v));
		if (!v[0])
			continue;
		snprintf(m->name, sizeof(m->name), "%s", l.names[i]);
		snprintf(m->value, sizeof(m->value), "%s", v);
		env->n_mitigations++;
	}
	ps_dir_free(&l);
}

static void temperatures(const char *root, struct ps_environment *env)
{
	char dir[4096];
	struct ps_dirlist chips;

	ps_path(dir, sizeof(dir), root, "/sys/class/hwmon");
	if (ps_dir_list(dir, &chips) < 0)
		return;
	for (size_t i = 0; i < chips.n && env->n_temps < PS_ARRAY_SIZE(env->temps); i++) {
		struct ps_env_temp *t = &env->temps[env->n_temps];
		char rel[256], cdir[4096];
		struct ps_dirlist files;
		bool any = false;

		snprintf(rel, sizeof(rel), "/sys/class/hwmon/%.64s/name", chips.names[i]);
		read_text(root, rel, t->sensor, sizeof(t->sensor));
		if (!t->sensor[0])
			snprintf(t->sensor, sizeof(t->sensor), "%.40s", chips.names[i]);
		ps_path(cdir, sizeof(cdir), root, "/sys/class/hwmon/%.64s", chips.names[i]);
		if (ps_dir_list(cdir, &files) < 0)
			continue;
		for (size_t k = 0; k < files.n; k++) {
			const char *f = files.names[k];
			size_t n = strlen(f);
			char path[4500];
			int64_t mc;

			if (strncmp(f, "temp", 4) || n < 7 || strcmp(f + n - 6, "_input"))
				continue;
			snprintf(path, sizeof(path), "%s/%s", cdir, f);
			if (ps_read_s64(path, &mc) < 0 || mc < -50000 || mc > 200000)
				continue;
			if (!any || mc / 1000.0 > t->max_c)
				t->max_c = mc / 1000.0;
			any = true;
		}
		ps_dir_free(&files);
		if (any)
			env->n_temps++;
	}
	ps_dir_free(&chips);
}

int ps_environment_read(const char *root, struct ps_environment *env)
{
	memset(env, 0, sizeof(*env));
	env->min_khz = env->max_khz = env->hw_min_khz = env->hw_max_khz = PS_UNKNOWN;
	env->boost = env->smt_active = PS_TRI_UNKNOWN;
	cpufreq(root, env);
	read_text(root, CPU "/cpuidle/current_driver", env->cpuidle_driver,
		  sizeof(env->cpuidle_driver));
	read_text(root, CPU "/smt/control", env->smt_control, sizeof(env->smt_control));
	env->smt_active = read_tri(root, CPU "/smt/active", false);
	read_text(root, "/sys/kernel/mm/transparent_hugepage/enabled", env->thp, sizeof(env->thp));
	chosen_word(env->thp);
	mitigations(root, env);
	temperatures(root, env);
	env->read = true;
	return 0;
}

void ps_environment_json(const struct ps_environment *env, json_object *report)
{
	json_object *e = json_object_new_object(), *f = json_object_new_object(), *smt, *a;

	ps_json_set_str(f, "driver", env->cpufreq_driver);
	ps_json_set_str(f, "governor", env->governor);
	ps_json_set_count(f, "min_khz", env->min_khz);
	ps_json_set_count(f, "max_khz", env->max_khz);
	ps_json_set_count(f, "hw_min_khz", env->hw_min_khz);
	ps_json_set_count(f, "hw_max_khz", env->hw_max_khz);
	ps_json_set_tri(f, "boost", env->boost);
	ps_json_set_str(f, "energy_performance_preference", env->epp);
	ps_json_set(e, "cpufreq", f);
	ps_json_set_str(e, "cpuidle_driver", env->cpuidle_driver);
	smt = json_object_new_object();
	ps_json_set_str(smt, "control", env->smt_control);
	ps_json_set_tri(smt, "active", env->smt_active);
	ps_json_set(e, "smt", smt);
	ps_json_set_str(e, "transparent_hugepage", env->thp);
	a = json_object_new_array();
	for (size_t i = 0; i < env->n_mitigations; i++) {
		json_object *m = json_object_new_object();

		ps_json_set_str(m, "name", env->mitigations[i].name);
		ps_json_set_str(m, "state", env->mitigations[i].value);
		json_object_array_add(a, m);
	}
	ps_json_set(e, "mitigations", a);
	a = json_object_new_array();
	for (size_t i = 0; i < env->n_temps; i++) {
		json_object *t = json_object_new_object();

		ps_json_set_str(t, "sensor", env->temps[i].sensor);
		ps_json_set_num(t, "max_c", env->temps[i].max_c, 0);
		json_object_array_add(a, t);
	}
	ps_json_set(e, "temperatures", a);
	ps_json_set(report, "environment", e);
}
