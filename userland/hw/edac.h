/*
 * edac.h - the kernel's EDAC view of the memory controllers and their DIMMs
 * (/sys/devices/system/edac/mc), with the corrected and uncorrected error
 * counts since boot: read by the inventory and, around every step, by the
 * edac recorder for the step's own counts.
 */
#ifndef PS_HW_EDAC_H
#define PS_HW_EDAC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ps_edac_mc {
	int mc;		   /* N of mcN */
	char name[64];	   /* mc_name: the driver's controller, "Skylake Socket#0 IMC#0" */
	int64_t size_mb;   /* PS_UNKNOWN (-1) where not given */
	int64_t ce, ue;	   /* ce_count, ue_count */
	int64_t ce_noinfo; /* errors EDAC could not place on a DIMM */
	int64_t ue_noinfo;
};

struct ps_edac_dimm {
	int mc;
	char name[16];	    /* "dimm0", "rank2" */
	char label[64];	    /* dimm_label: "CPU_SrcID#0_MC#0_Chan#1_DIMM#0" or a board's name */
	char location[64];  /* dimm_location: "channel 1 slot 0" */
	int64_t size_mb;    /* -1 unknown */
	char mem_type[32];  /* dimm_mem_type: "Unbuffered-DDR4" */
	char edac_mode[32]; /* dimm_edac_mode: "SECDED" */
	int64_t ce, ue;	    /* dimm_ce_count, dimm_ue_count */
};

struct ps_edac {
	bool present; /* an EDAC driver registered at least one controller */
	struct ps_edac_mc *mcs;
	size_t n_mcs;
	struct ps_edac_dimm *dimms;
	size_t n_dimms;
};

/*
 * Read root's /sys/devices/system/edac/mc. 0 (present false when no driver
 * registered a controller), or -ENOMEM; unreadable counts are -1.
 */
int ps_edac_read(const char *root, struct ps_edac *e);
void ps_edac_free(struct ps_edac *e);

#endif
