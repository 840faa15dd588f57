/* surface.c - schedule, buckets, map and slowest reads of a surface scan (surface.h). Pure. */
#include "engines/io/surface.h"

#include <errno.h>
#include <math.h>
#include <string.h>

static const double upper_ms[5] = {5, 20, 50, 150, 500};
static const char *const names[PS_SURF_BUCKETS] = {"<5 ms",   "<20 ms",	  "<50 ms", "<150 ms",
						   "<500 ms", ">=500 ms", "error"};

static const char *const keys[PS_SURF_BUCKETS] = {"lt5_ms",   "lt20_ms",  "lt50_ms", "lt150_ms",
						  "lt500_ms", "ge500_ms", "error"};

const char *ps_surface_bucket_key(int b)
{
	return b >= 0 && b < PS_SURF_BUCKETS ? keys[b] : "?";
}

int ps_surface_bucket(uint64_t lat_ns)
{
	for (int b = 0; b < 5; b++)
		if ((double)lat_ns < upper_ms[b] * 1e6)
			return b;
	return 5;
}

const char *ps_surface_bucket_name(int b)
{
	return b >= 0 && b < PS_SURF_BUCKETS ? names[b] : "?";
}

double ps_surface_bucket_upper_ms(int b)
{
	return b >= 0 && b < 5 ? upper_ms[b] : NAN;
}

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

int ps_surface_schedule(struct ps_surface_sched *s, uint64_t size, uint32_t piece, uint32_t align,
			bool full, double min_pct)
{
	uint64_t head_end;

	memset(s, 0, sizeof(*s));
	if (!size || !piece || !align || piece % align)
		return -EINVAL;
	size = size / align * align;
	if (!size)
		return -EINVAL;
	s->size = size;
	s->piece = piece;
	s->align = align;
	s->full = full;
	head_end = full || size < PS_SURF_EDGE ? size : PS_SURF_EDGE;
	s->n_head = div_up(head_end, piece);
	s->mid_start = head_end;
	s->tail_start = size;
	if (!full && size > PS_SURF_EDGE) {
		s->tail_start = size - PS_SURF_EDGE > head_end ? size - PS_SURF_EDGE : head_end;
		s->tail_start = s->tail_start / align * align;
		s->n_tail = div_up(size - s->tail_start, piece);
		s->mid_len = s->tail_start - head_end;
		if (s->mid_len) {
			double cover = min_pct / 100.0 * (double)size;
			uint64_t bytes = (uint64_t)cover + ((double)(uint64_t)cover < cover);
			uint64_t want = div_up(bytes, piece);
			uint64_t fit = s->mid_len / piece;

			s->n_mid = want < fit ? want : fit;
			if (!s->n_mid)
				s->n_mid = 1; /* a middle shorter than one piece is read whole */
		}
	}
	s->total = s->n_head + s->n_mid + s->n_tail;
	for (uint64_t i = s->n_head; i < s->n_head + s->n_mid; i++) {
		uint64_t off;
		uint32_t len;

		ps_surface_piece(s, i, &off, &len);
		s->total_bytes += len;
	}
	s->total_bytes += head_end + (size - s->tail_start);
	return 0;
}

void ps_surface_piece(const struct ps_surface_sched *s, uint64_t i, uint64_t *off, uint32_t *len)
{
	uint64_t end;

	if (i < s->n_head) {
		*off = i * s->piece;
		end = s->mid_start;
	} else if (i < s->n_head + s->n_mid) {
		uint64_t k = i - s->n_head, stride = s->mid_len / s->n_mid;
		uint64_t slack = stride > s->piece ? (stride - s->piece) / 2 : 0;

		*off = (s->mid_start + k * stride + slack) / s->align * s->align;
		end = s->mid_start + s->mid_len;
	} else {
		*off = s->tail_start + (i - s->n_head - s->n_mid) * s->piece;
		end = s->size;
	}
	*len = (uint32_t)(end - *off < s->piece ? end - *off : s->piece);
}

void ps_surface_map_init(struct ps_surface_map *m, uint64_t size)
{
	memset(m, 0, sizeof(*m));
	m->size = size ? size : 1;
}

unsigned int ps_surface_cell_of(const struct ps_surface_map *m, uint64_t off)
{
	unsigned __int128 c = (unsigned __int128)off * PS_SURF_CELLS / m->size;

	return c >= PS_SURF_CELLS ? PS_SURF_CELLS - 1 : (unsigned int)c;
}

void ps_surface_map_add(struct ps_surface_map *m, uint64_t off, uint64_t lat_ns, bool error)
{
	struct ps_surface_cell *c = &m->cell[ps_surface_cell_of(m, off)];

	c->reads++;
	if (error) {
		c->errors++;
		return;
	}
	c->sum_ns += lat_ns;
	if (lat_ns > c->worst_ns)
		c->worst_ns = lat_ns;
}

void ps_surface_slowest_add(struct ps_surface_slowest *s, uint64_t off, uint32_t len,
			    uint64_t lat_ns)
{
	size_t at = s->n;

	while (at > 0 && s->r[at - 1].lat_ns < lat_ns)
		at--;
	if (at >= PS_SURF_SLOWEST)
		return;
	if (s->n < PS_SURF_SLOWEST)
		s->n++;
	memmove(&s->r[at + 1], &s->r[at], (s->n - 1 - at) * sizeof(s->r[0]));
	s->r[at] = (struct ps_surface_slow){off, len, lat_ns};
}
