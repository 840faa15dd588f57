/*
 * stick_check.h - the stick's file system checked at boot, before it is
 * mounted: dosfstools' fsck.fat looks (-n), repairs what a cut-off write can
 * leave (-a: the dirty flag, lost clusters, a temporary file's size, a stale
 * free count), looks again, and what it found and did goes into the next
 * report (stick.check).
 */
#ifndef PS_STICK_CHECK_H
#define PS_STICK_CHECK_H

#include <json-c/json.h>

/* Where /init's check leaves its record for `probestick boot` (below --root). */
#define PS_STICK_CHECK_JSON "/run/probestick/stick-check.json"

/*
 * fsck.fat's output read back (pure): {"tool", "problems": [{kind, message,
 * path?, clusters?, bytes?}], "files": [paths listed by -l], "summary":
 * {files, clusters_used, clusters} or null}. Kinds: dirty, lost_clusters,
 * free_count, free_cluster, file_size, cross_link, fats_differ,
 * boot_backup, other. A difference between the boot sector and its backup
 * in the dirty flag's byte alone is the dirty flag, not a second problem.
 */
json_object *ps_fsck_decode(const char *output);

/* Runs argv[0] (found on PATH) with argv; its stdout and stderr in *out (malloc'd). */
typedef int (*ps_cmd_runner)(const char *const argv[], char **out, int *status, void *arg);

/*
 * Check device, repair it when the check found something, check again:
 * the record of stick.check (docs/report.md), never NULL. fsck names the
 * program (NULL: fsck.fat); run NULL runs it for real.
 */
json_object *ps_stick_check(const char *device, const char *fsck, ps_cmd_runner run, void *arg);

/*
 * Once the stick is mounted: remove the files fsck.fat -a made of lost
 * cluster chains (/FSCKnnnn.REC, leftovers of a cut-off write; check's
 * "salvaged"), through the stick store, and add what was done to recovered.
 */
void ps_stick_check_settle(const char *stick, json_object *check, json_object *recovered);

#endif
