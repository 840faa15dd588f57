/* pairing.c - which NIC ports to measure against each other: PCI order, carrier
 * and the reachability matrix in, pairs out (see pairing.h for the rule). */
#include "engines/net/pairing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool parse_pci(const char *s, unsigned int v[4])
{
	int end = 0;

	return s && sscanf(s, "%x:%x:%x.%x%n", &v[0], &v[1], &v[2], &v[3], &end) == 4 &&
	       s[end] == '\0';
}

int ps_pair_port_cmp(const struct ps_pair_port *x, const struct ps_pair_port *y)
{
	unsigned int a[4], b[4];
	bool pa = parse_pci(x->pci, a), pb = parse_pci(y->pci, b);

	if (pa != pb)
		return pa ? -1 : 1;
	for (int i = 0; pa && i < 4; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

static bool reaches(const bool *reach, size_t n, size_t i, size_t j)
{
	return reach && (reach[i * n + j] || reach[j * n + i]);
}

size_t ps_pair_ports(const struct ps_pair_port *ports, size_t n, const bool *reach,
		     struct ps_pair *out)
{
	size_t *order, npairs = 0;
	bool *used;

	if (n < 2)
		return 0;
	order = calloc(n, sizeof(*order));
	used = calloc(n, sizeof(*used));
	if (!order || !used) {
		free(order);
		free(used);
		return 0;
	}
	/* Insertion sort: a machine has a handful of ports, and it is stable. */
	for (size_t i = 0; i < n; i++) {
		size_t k = i;

		while (k > 0 && ps_pair_port_cmp(&ports[order[k - 1]], &ports[i]) > 0) {
			order[k] = order[k - 1];
			k--;
		}
		order[k] = i;
	}
	for (size_t x = 0; x < n; x++) {
		size_t i = order[x];

		if (used[i] || !ports[i].carrier)
			continue;
		for (size_t y = x + 1; y < n; y++) {
			size_t j = order[y];

			if (used[j] || !ports[j].carrier || !reaches(reach, n, i, j))
				continue;
			out[npairs++] = (struct ps_pair){.a = i, .b = j, .reachable = true};
			used[i] = used[j] = true;
			break;
		}
	}
	for (size_t x = 0; x < n; x++) {
		size_t i = order[x];

		if (used[i] || !ports[i].carrier)
			continue;
		for (size_t y = x + 1; y < n; y++) {
			size_t j = order[y];

			if (used[j] || !ports[j].carrier)
				continue;
			out[npairs++] = (struct ps_pair){.a = i, .b = j, .reachable = false};
			used[i] = used[j] = true;
			break;
		}
	}
	free(order);
	free(used);
	return npairs;
}
