/*
 * boot.h - the pure decoders behind the boot facts of the inventory
 * (struct ps_boot in hw/inventory.h): an EFI boolean variable as efivarfs
 * shows it, the kernel's lockdown mode, the signature trailer of a module.
 * No I/O: hw/boot.c reads the files and hands their bytes here.
 */
#ifndef PS_HW_BOOT_H
#define PS_HW_BOOT_H

#include "decode/decode.h"

#include <stddef.h>
#include <stdint.h>

/* The GUID of the UEFI global variables (SecureBoot, SetupMode). */
#define PS_EFI_GLOBAL_GUID "8be4df61-93ca-11d2-aa0d-00e098032b8c"
/* shim's variables (MokListRT, MokSBStateRT, ...). */
#define PS_EFI_SHIM_GUID "605dab50-e046-4300-abb6-3dd810dd8b23"

/*
 * An efivarfs file of a one-byte boolean variable: 4 bytes of attributes,
 * then the value. 1 or 0, PS_TRI_UNKNOWN when it is not that shape.
 */
ps_tri ps_efivar_bool(const uint8_t *data, size_t len);

/*
 * /sys/kernel/security/lockdown ("none [integrity] confidentiality"): the
 * chosen mode into out ("integrity"), "" when none is marked. 0 or -EINVAL.
 */
int ps_lockdown_mode(const char *text, char *out, size_t len);

/*
 * The last bytes of a module file: true when it ends in the kernel's
 * signature marker ("~Module signature appended~\n") behind a
 * struct module_signature whose sizes fit in the file (file_len in all).
 */
ps_tri ps_module_signed(const uint8_t *tail, size_t tail_len, uint64_t file_len);

#endif
