/*
 * store.h - the stick store: the one way probestick writes files on the stick
 * (reports, their text and HTML, the index, notes), so that a cut at any
 * moment leaves every file either as it was or as it was meant to be, and
 * a cut between writes leaves a volume no PC asks to repair.
 *
 * The stick is mounted read-only while the plan runs (/init does it). A
 * write remounts it read-write, writes, and remounts it read-only, which
 * syncs the file system and clears FAT's dirty flag again: begin/end pairs
 * nest, so a report's files share one window. Paths outside the stick (a
 * host's --out folder, /run) are written the same careful way, without any
 * remount. Why the write order matters on vfat: docs/design.md, "Writing
 * on the stick".
 */
#ifndef PS_STORE_H
#define PS_STORE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The stick's mount point ("" or NULL: no stick). When it is mounted
 * read-only the store takes over its remounts; when it is mounted
 * read-write (by hand), writes are as careful but the mount is left as is.
 */
void ps_store_init(const char *stick);

/* The store remounts the stick around writes (it was mounted read-only). */
bool ps_store_managed(void);

/*
 * Make the file system that holds path writable until the matching end.
 * Nests; a path off the stick needs nothing. 0, or -errno from the remount
 * (-EACCES or -EROFS: the stick is write-protected).
 */
int ps_store_begin(const char *path);

/* End a begin: the outermost end remounts the stick read-only. 0 or -errno. */
int ps_store_end(const char *path);

/*
 * dir/name holds data afterwards, replacing what was there in one step
 * that survives a cut at any moment: a temporary file .name.tmp written
 * and synced, renamed over name, the directory entries synced in an order
 * FAT keeps (docs/design.md). Opens its own window. 0 or -errno.
 */
int ps_store_write(const char *dir, const char *name, const void *data, size_t len);

/* mkdir -p on the stick, each new folder synced. 0 or -errno. */
int ps_store_mkdirs(const char *path, unsigned int mode);

/* One mkdir, synced; -EEXIST when it is there. */
int ps_store_mkdir(const char *path, unsigned int mode);

/* Remove a file, synced. 0, or -errno (-ENOENT when it was not there). */
int ps_store_unlink(const char *path);

/* What the last failed remount said, for a warning ("" when none failed). */
const char *ps_store_error(void);

/* Tests: a stick at path whose remounts call remount(stick, rw) instead of mount(2). */
void ps_store_init_with(const char *stick, int (*remount)(const char *stick, bool rw));

#endif
