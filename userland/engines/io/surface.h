/*
 * surface.h - the arithmetic of a surface scan, pure so that unit tests check
 * it on tables: which pieces a full or sampled scan reads (an O(1) schedule,
 * not a list: a full scan of 20 TB is 20 million pieces), the latency
 * buckets of the Victoria / MHDD convention, and the latency map by position.
 */
#ifndef PS_IO_SURFACE_H
#define PS_IO_SURFACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* <5, <20, <50, <150, <500, >=500 ms, and reads that failed. */
#define PS_SURF_BUCKETS 7
#define PS_SURF_ERROR	6
int ps_surface_bucket(uint64_t lat_ns);	   /* 0..5 */
const char *ps_surface_bucket_name(int b); /* "<5 ms", ..., ">=500 ms", "error" */
const char *ps_surface_bucket_key(int b);  /* "lt5_ms", ..., "ge500_ms", "error": JSON keys */
double ps_surface_bucket_upper_ms(int b);  /* 5, 20, 50, 150, 500; NAN for the last two */

#define PS_SURF_EDGE (1ULL << 30) /* a sampled scan reads the first and last GiB whole */

/* What a scan reads: pieces of piece bytes, in order of position. */
struct ps_surface_sched {
	uint64_t size;	 /* device bytes */
	uint32_t piece;	 /* bytes per read, a multiple of align */
	uint32_t align;	 /* logical sector (offsets and lengths are multiples) */
	bool full;	 /* every byte */
	uint64_t n_head; /* sampled: pieces of the first GiB */
	uint64_t n_mid;	 /* sampled: pieces spread between the edges */
	uint64_t n_tail; /* sampled: pieces of the last GiB */
	uint64_t mid_start, mid_len, tail_start;
	uint64_t total;	      /* pieces in all */
	uint64_t total_bytes; /* bytes the scan reads */
};

/*
 * A full scan, or a sampled one: the first and last GiB whole, and between
 * them evenly spread pieces that cover at least min_pct of the device
 * (1 % in the plan). -EINVAL for a zero size, piece or align, or a piece
 * that is not a multiple of align.
 */
int ps_surface_schedule(struct ps_surface_sched *s, uint64_t size, uint32_t piece, uint32_t align,
			bool full, double min_pct);
/* Piece i (0 <= i < total): its offset and length (the last piece of a region may be short). */
void ps_surface_piece(const struct ps_surface_sched *s, uint64_t i, uint64_t *off, uint32_t *len);

/* The latency map: cells of equal size over the device, each its worst and mean read. */
#define PS_SURF_CELLS 100
struct ps_surface_cell {
	uint32_t reads, errors;
	uint64_t worst_ns, sum_ns;
};
struct ps_surface_map {
	uint64_t size;
	struct ps_surface_cell cell[PS_SURF_CELLS];
};
void ps_surface_map_init(struct ps_surface_map *m, uint64_t size);
/* A read of [off, off + len): its latency lands in the cell of its first byte. */
void ps_surface_map_add(struct ps_surface_map *m, uint64_t off, uint64_t lat_ns, bool error);
/* The cell of a position, 0 .. PS_SURF_CELLS - 1. */
unsigned int ps_surface_cell_of(const struct ps_surface_map *m, uint64_t off);

/* The slowest reads, worst first, at most PS_SURF_SLOWEST. */
#define PS_SURF_SLOWEST 10
struct ps_surface_slow {
	uint64_t off;
	uint32_t len;
	uint64_t lat_ns;
};
struct ps_surface_slowest {
	struct ps_surface_slow r[PS_SURF_SLOWEST];
	size_t n;
};
void ps_surface_slowest_add(struct ps_surface_slowest *s, uint64_t off, uint32_t len,
			    uint64_t lat_ns);

#endif
