/*
 * test_kmsg_decode.c - the kernel-log decoders, one record's text at a time:
 * the printk formats of Linux 6.1 (libata, the block layer, SCSI, NVMe,
 * e1000e/igb/ixgbe/phylib, the netdev watchdog, the firmware loader, AER,
 * MCE, EDAC, kernel warnings) and the older forms still met in the field.
 * Lines marked "qemu" were recorded from the boot test's guest.
 */
#include "check.h"
#include "record/kmsg.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

struct dcase {
	const char *text;
	const char *rule; /* NULL: no hit */
	enum ps_kmsg_sev sev;
	enum ps_kmsg_ns ns;
	const char *name;
	long long lba_first, lba_last; /* -1: none */
	bool detail;
	const char *what; /* a part of hit.what, or NULL */
	const char *note; /* hit.note exactly, or NULL: not checked */
};

#define NONE -1, -1

static const struct dcase cases[] = {
    /* libata, recorded from QEMU's AHCI with blkdebug read errors (qemu) */
    {"ata1.00: failed command: READ FPDMA QUEUED", "ata_error", PS_KMSG_FAIL, PS_KNS_ATA, "ata1.00",
     NONE, false, "failed command READ FPDMA QUEUED", ""},
    {"ata1.00: cmd 60/00:00:00:22:00/01:00:00:00:00/40 tag 0 ncq dma 131072 in\n"
     "         res 50/00:00:00:00:00/00:00:00:00:00/a0 Emask 0x1 (device error)",
     /* failed with the NCQ queue, no ERR in its status: not its sectors */
     "ata_error", PS_KMSG_FAIL, PS_KNS_ATA, "ata1.00", NONE, true, NULL, "device error"},
    {"ata1.00: cmd c8/00:00:00:20:00/00:00:00:00:00/e0 tag 25 dma 131072 in\n"
     "         res 41/04:00:00:20:00/00:01:00:00:00/e0 Emask 0x1 (device error)",
     "ata_error", PS_KMSG_FAIL, PS_KNS_ATA, "ata1.00", 8192, 8447, true, NULL, "device error"},
    {"ata1.00: error: { ABRT }", "ata_error", PS_KMSG_FAIL, PS_KNS_ATA, "ata1.00", NONE, true, NULL,
     "ABRT"},
    {.text = "ata1.00: status: { DRDY ERR }"},
    {"ata1.00: exception Emask 0x0 SAct 0x0 SErr 0x0 action 0x6", "ata_error", PS_KMSG_FAIL,
     PS_KNS_ATA, "ata1.00", NONE, true, NULL, ""},
    {.text = "ata1.00: irq_stat 0x40000001"},
    {.text = "ata1: failed to read log page 10h (errno=-5)"},
    {"ata1: hard resetting link", "ata_link_reset", PS_KMSG_WARN, PS_KNS_ATA, "ata1", NONE, false,
     "hard resetting link", ""},
    {"ata1: SATA link up 1.5 Gbps (SStatus 113 SControl 300)", "ata_link_speed", PS_KMSG_INFO,
     PS_KNS_ATA, "ata1", NONE, false, "link up at 1.5 Gbps", ""},
    {"ata1.00: configured for UDMA/100", "ata_configured", PS_KMSG_INFO, PS_KNS_ATA, "ata1.00",
     NONE, false, "configured for UDMA/100", ""},
    /* libata on real disks (6.1 formats, libata-eh.c / libata-core.c / libata-sata.c) */
    {"ata3.00: failed command: READ DMA EXT", "ata_error", PS_KMSG_FAIL, PS_KNS_ATA, "ata3.00",
     NONE, false, "READ DMA EXT", ""},
    {"ata3.00: cmd 25/00:08:f8:3f:a1/00:00:1d:00:00/e0 tag 0 dma 4096 in\n"
     "         res 51/40:00:f8:3f:a1/00:00:1d:00:00/e0 Emask 0x9 (media error)",
     "ata_error", PS_KMSG_FAIL, PS_KNS_ATA, "ata3.00", 0x1da13ff8LL, 0x1da13fffLL, true, NULL,
     "media error"},
    {"ata3.00: error: { UNC }", "ata_error", PS_KMSG_FAIL, PS_KNS_ATA, "ata3.00", NONE, true, NULL,
     "UNC"},
    {"ata3.00: exception Emask 0x0 SAct 0x0 SErr 0x0 action 0x0", "ata_error", PS_KMSG_FAIL,
     PS_KNS_ATA, "ata3.00", NONE, true, NULL, NULL},
    {"ata3: exception Emask 0x10 SAct 0x0 SErr 0x4050000 action 0xe frozen", "ata_link_error",
     PS_KMSG_WARN, PS_KNS_ATA, "ata3", NONE, false, "SErr 0x4050000", NULL},
    {"ata3: SError: { PHYRdyChg CommWake DevExch }", "ata_link_error", PS_KMSG_WARN, PS_KNS_ATA,
     "ata3", NONE, true, NULL, "PHYRdyChg CommWake DevExch"},
    {"ata3: soft resetting link", "ata_link_reset", PS_KMSG_WARN, PS_KNS_ATA, "ata3", NONE, false,
     "soft resetting link", NULL},
    {"ata3: COMRESET failed (errno=-16)", "ata_link_reset", PS_KMSG_WARN, PS_KNS_ATA, "ata3", NONE,
     true, NULL, "COMRESET failed"},
    {"ata3: reset failed, giving up", "ata_link_reset", PS_KMSG_FAIL, PS_KNS_ATA, "ata3", NONE,
     true, NULL, "reset failed, giving up"},
    {"ata3: limiting SATA link speed to 1.5 Gbps", "ata_link_speed", PS_KMSG_WARN, PS_KNS_ATA,
     "ata3", NONE, false, "link speed limited to 1.5 Gbps", NULL},
    {"ata3: SATA link up 6.0 Gbps (SStatus 133 SControl 300)", "ata_link_speed", PS_KMSG_INFO,
     PS_KNS_ATA, "ata3", NONE, false, "link up at 6.0 Gbps", NULL},
    {"ata3: SATA link down (SStatus 0 SControl 300)", "ata_link_down", PS_KMSG_WARN, PS_KNS_ATA,
     "ata3", NONE, false, "SATA link down", NULL},
    {"ata3.00: limiting speed to UDMA/100:PIO4", "ata_speed_down", PS_KMSG_WARN, PS_KNS_ATA,
     "ata3.00", NONE, false, "UDMA/100:PIO4", NULL},
    {"ata3.00: NCQ disabled due to excessive errors", "ata_speed_down", PS_KMSG_WARN, PS_KNS_ATA,
     "ata3.00", NONE, false, "NCQ disabled", NULL},
    {"ata3.00: configured for UDMA/133", "ata_configured", PS_KMSG_INFO, PS_KNS_ATA, "ata3.00",
     NONE, false, "UDMA/133", NULL},
    {"ata3.00: revalidation failed (errno=-5)", "ata_disabled", PS_KMSG_FAIL, PS_KNS_ATA, "ata3.00",
     NONE, false, "revalidation failed", NULL},
    {"ata3.00: disable device", "ata_disabled", PS_KMSG_FAIL, PS_KNS_ATA, "ata3.00", NONE, false,
     "disable device", NULL},
    {.text = "ata3.00: ATA-9: ST2000DM001-1CH164, CC27, max UDMA/133"},
    {.text = "ata3.00: 3907029168 sectors, multi 16: LBA48 NCQ (depth 32), AA"},
    {"ata3.00: cmd 60/08:00:00:08:00/00:00:00:00:00/40 tag 0 ncq dma 4096 in", "ata_error",
     PS_KMSG_FAIL, PS_KNS_ATA, "ata3.00", 2048, 2055, true, NULL, NULL},
    {"ata3.00: cmd c8/00:10:00:00:00/00:00:00:00:00/e0 tag 0 dma 8192 in", "ata_error",
     PS_KMSG_FAIL, PS_KNS_ATA, "ata3.00", 0, 15, true, NULL, NULL},
    {"ata3.00: cmd ef/05:fe:00:00:00/00:00:00:00:00/40 tag 0", "ata_error", PS_KMSG_FAIL,
     PS_KNS_ATA, "ata3.00", NONE, true, NULL, NULL}, /* SET FEATURES: no LBA */
    /* the block layer (blk-mq.c blk_print_req_error, buffer.c) */
    {"I/O error, dev sda, sector 8192 op 0x0:(READ) flags 0x4000 phys_seg 32 prio class 2",
     "io_error", PS_KMSG_FAIL, PS_KNS_BLOCK, "sda", 8192, 8192, false, "I/O error on READ", NULL},
    {"critical medium error, dev sdb, sector 1953525160 op 0x0:(READ) flags 0x80700 phys_seg 1 "
     "prio class 2",
     "io_error", PS_KMSG_FAIL, PS_KNS_BLOCK, "sdb", 1953525160LL, 1953525160LL, false,
     "critical medium error on READ", NULL},
    {"blk_update_request: I/O error, dev sdc, sector 2048 op 0x1:(WRITE) flags 0x0 phys_seg 1 "
     "prio class 0",
     "io_error", PS_KMSG_FAIL, PS_KNS_BLOCK, "sdc", 2048, 2048, false, "I/O error on WRITE", NULL},
    {"print_req_error: I/O error, dev nvme0n1, sector 4096", "io_error", PS_KMSG_FAIL, PS_KNS_BLOCK,
     "nvme0n1", 4096, 4096, false, NULL, NULL},
    {"I/O error, dev sda, sector 0 op 0x2:(FLUSH) flags 0x800 phys_seg 0 prio class 2", "io_error",
     PS_KMSG_FAIL, PS_KNS_BLOCK, "sda", NONE, false, "on FLUSH", NULL},
    {"operation not supported error, dev sdb, sector 0 op 0x9:(WRITE_ZEROES) flags 0x800 "
     "phys_seg 0 prio class 2",
     "io_error", PS_KMSG_INFO, PS_KNS_BLOCK, "sdb", NONE, false, NULL, NULL},
    {"Buffer I/O error on dev sda1, logical block 0, async page read", "io_error", PS_KMSG_FAIL,
     PS_KNS_BLOCK, "sda1", NONE, true, NULL, NULL},
    /* SCSI (scsi_logging.c, via sd's completion) */
    {"sd 2:0:0:0: [sda] tag#3 FAILED Result: hostbyte=DID_OK driverbyte=DRIVER_OK cmd_age=7s",
     "io_error", PS_KMSG_FAIL, PS_KNS_BLOCK, "sda", NONE, true, NULL, ""},
    {"sd 2:0:0:0: [sda] tag#3 Sense Key : Medium Error [current]", "io_error", PS_KMSG_FAIL,
     PS_KNS_BLOCK, "sda", NONE, true, NULL, "Medium Error"},
    {"sd 2:0:0:0: [sda] tag#3 Add. Sense: Unrecovered read error - auto reallocate failed",
     "io_error", PS_KMSG_INFO, PS_KNS_BLOCK, "sda", NONE, true, NULL,
     "Unrecovered read error - auto reallocate failed"},
    {"sd 2:0:0:0: [sda] tag#3 CDB: Read(10) 28 00 1d a1 3f f8 00 00 08 00", "io_error",
     PS_KMSG_INFO, PS_KNS_BLOCK, "sda", 0x1da13ff8LL, 0x1da13fffLL, true, NULL, NULL},
    {"sd 6:0:0:0: [sdc] tag#0 CDB: Read(16) 88 00 00 00 00 01 00 00 00 00 00 00 00 80 00 00",
     "io_error", PS_KMSG_INFO, PS_KNS_BLOCK, "sdc", 0x100000000LL, 0x10000007fLL, true, NULL, NULL},
    /* LBAs past 2^63 (a corrupt line; fuzz: kmsg) are no range, never a negative sector */
    {"sd 6:0:0:0: [sdc] tag#0 CDB: Read(16) 88 00 ff ff ff ff ff ff ff f0 00 00 00 80 00 00",
     "io_error", PS_KMSG_INFO, PS_KNS_BLOCK, "sdc", NONE, true, NULL, NULL},
    {"sd 6:0:0:0: [sdc] tag#0 CDB: Read(16) 88 00 7f ff ff ff ff ff ff f0 00 00 00 80 00 00",
     "io_error", PS_KMSG_INFO, PS_KNS_BLOCK, "sdc", NONE, true, NULL, NULL},
    {"nvme0n1: Read(0x2) @ LBA 18446744073709551615, 8 blocks, I/O Error (sct 0x2 / sc 0x81) DNR",
     "nvme_error", PS_KMSG_FAIL, PS_KNS_BLOCK, "nvme0n1", NONE, false, "Read", "I/O Error"},
    {"I/O error, dev sda, sector 9223372036854775808 op 0x0:(READ) flags 0x0 phys_seg 1 prio class "
     "2",
     "io_error", PS_KMSG_FAIL, PS_KNS_BLOCK, "sda", NONE, false, NULL, NULL},
    {"sd 2:0:0:0: [sda] tag#9 Sense Key : Hardware Error [current] [descriptor]", "io_error",
     PS_KMSG_FAIL, PS_KNS_BLOCK, "sda", NONE, true, NULL, "Hardware Error"},
    {"sd 2:0:0:0: [sda] tag#9 Sense Key : Recovered Error [current]", "scsi_recovered",
     PS_KMSG_WARN, PS_KNS_BLOCK, "sda", NONE, false, "recovered error", NULL},
    {.text = "sd 2:0:0:0: [sda] tag#9 Sense Key : Illegal Request [current]"},
    {"sd 2:0:0:0: rejecting I/O to offline device", "drive_offline", PS_KMSG_FAIL, PS_KNS_SCSI,
     "2:0:0:0", NONE, false, "rejecting I/O", NULL},
    {.text = "sd 2:0:0:0: [sda] 3907029168 512-byte logical blocks: (2.00 TB/1.82 TiB)"},
    {.text = "sd 2:0:0:0: Attached scsi generic sg0 type 0"},
    /* NVMe (core.c nvme_log_error, pci.c nvme_timeout) */
    {"nvme0n1: I/O Cmd(0x2) @ LBA 1234, 8 blocks, I/O Error (sct 0x2 / sc 0x81) DNR", "nvme_error",
     PS_KMSG_FAIL, PS_KNS_BLOCK, "nvme0n1", 1234, 1241, false, "I/O Cmd", "I/O Error"},
    {"nvme1n1: Read(0x2) @ LBA 4096, 256 blocks, Unrecovered Read Error (sct 0x2 / sc 0x81) DNR ",
     "nvme_error", PS_KMSG_FAIL, PS_KNS_BLOCK, "nvme1n1", 4096, 4351, false, "Read",
     "Unrecovered Read Error"},
    {"nvme0: Admin Cmd(0x6), Invalid Field in Command (sct 0x0 / sc 0x2) DNR", "nvme_admin_error",
     PS_KMSG_INFO, PS_KNS_NVME, "nvme0", NONE, false, "Admin Cmd", "Invalid Field in Command"},
    {"nvme nvme0: I/O 12 QID 3 timeout, aborting", "nvme_timeout", PS_KMSG_WARN, PS_KNS_NVME,
     "nvme0", NONE, false, "I/O timeout, aborting", NULL},
    {"nvme nvme0: I/O 12 QID 3 timeout, reset controller", "nvme_timeout", PS_KMSG_WARN,
     PS_KNS_NVME, "nvme0", NONE, false, "I/O timeout, reset controller", NULL},
    {"nvme nvme0: Abort status: 0x371", "nvme_timeout", PS_KMSG_WARN, PS_KNS_NVME, "nvme0", NONE,
     true, NULL, "Abort status: 0x371"},
    {"nvme nvme0: controller is down; will reset: CSTS=0xffffffff, PCI_STATUS=0xffff", "nvme_reset",
     PS_KMSG_WARN, PS_KNS_NVME, "nvme0", NONE, false, "controller is down", NULL},
    {"nvme 0000:03:00.0: Removing after probe failure status: -19", "nvme_failed", PS_KMSG_FAIL,
     PS_KNS_PCI, "0000:03:00.0", NONE, false, "Removing after probe failure", NULL},
    {.text = "nvme nvme0: 2/0/0 default/read/poll queues"},
    /* NICs */
    {"e1000e 0000:01:00.0 eth0: NIC Link is Down", "nic_link_down", PS_KMSG_WARN, PS_KNS_NETDEV,
     "eth0", NONE, false, "link down", NULL},
    {"e1000e 0000:01:00.0 eth0: NIC Link is Up 1000 Mbps Full Duplex, Flow Control: Rx/Tx",
     "nic_link_up", PS_KMSG_INFO, PS_KNS_NETDEV, "eth0", NONE, false,
     "link up at 1000 Mbps Full Duplex", NULL},
    {"igb 0000:02:00.0 eno1: igb: eno1 NIC Link is Up 100 Mbps Full Duplex, Flow Control: RX",
     "nic_link_up", PS_KMSG_INFO, PS_KNS_NETDEV, "eno1", NONE, false, "100 Mbps", NULL},
    {"igb 0000:02:00.0 eno1: igb: eno1 NIC Link is Down", "nic_link_down", PS_KMSG_WARN,
     PS_KNS_NETDEV, "eno1", NONE, false, NULL, NULL},
    {"ixgbe 0000:05:00.1 enp5s0f1: NIC Link is Up 10 Gbps, Flow Control: RX/TX", "nic_link_up",
     PS_KMSG_INFO, PS_KNS_NETDEV, "enp5s0f1", NONE, false, "10 Gbps", NULL},
    {"r8169 0000:03:00.0 enp3s0: Link is Up - 1Gbps/Full - flow control rx/tx", "nic_link_up",
     PS_KMSG_INFO, PS_KNS_NETDEV, "enp3s0", NONE, false, "link up at 1Gbps/Full", NULL},
    {"r8169 0000:03:00.0 enp3s0: Link is Down", "nic_link_down", PS_KMSG_WARN, PS_KNS_NETDEV,
     "enp3s0", NONE, false, NULL, NULL},
    {"e1000e: eth1 NIC Link is Down", "nic_link_down", PS_KMSG_WARN, PS_KNS_NETDEV, "eth1", NONE,
     false, NULL, NULL},
    {"e1000e 0000:00:19.0 eth0: Reset adapter unexpectedly", "nic_reset", PS_KMSG_WARN,
     PS_KNS_NETDEV, "eth0", NONE, false, "Reset adapter unexpectedly", NULL},
    {"e1000e 0000:00:19.0 eth0: Detected Hardware Unit Hang:\n  TDH                  <2f>",
     "nic_reset", PS_KMSG_WARN, PS_KNS_NETDEV, "eth0", NONE, false, "Detected Hardware Unit Hang",
     NULL},
    {"e1000e 0000:01:00.0 eth0: NETDEV WATCHDOG: CPU: 1: transmit queue 0 timed out 5120 ms",
     "nic_tx_timeout", PS_KMSG_WARN, PS_KNS_NETDEV, "eth0", NONE, false, "transmit queue", NULL},
    {"NETDEV WATCHDOG: enp3s0 (r8169): transmit queue 0 timed out", "nic_tx_timeout", PS_KMSG_WARN,
     PS_KNS_NETDEV, "enp3s0", NONE, false, NULL, NULL},
    {.text = "e1000e 0000:01:00.0 eth0: renamed from enp1s0"},
    /* firmware (firmware_loader/main.c, drivers) */
    {"iwlwifi 0000:02:00.0: Direct firmware load for iwlwifi-cc-a0-72.ucode failed with error -2",
     "firmware_missing", PS_KMSG_WARN, PS_KNS_PCI, "0000:02:00.0", NONE, false,
     "firmware iwlwifi-cc-a0-72.ucode not loaded (error -2)", "iwlwifi-cc-a0-72.ucode"},
    {"i915 0000:00:02.0: firmware: failed to load i915/kbl_dmc_ver1_04.bin (-2)",
     "firmware_missing", PS_KMSG_WARN, PS_KNS_PCI, "0000:00:02.0", NONE, false,
     "i915/kbl_dmc_ver1_04.bin", "i915/kbl_dmc_ver1_04.bin"},
    {"bluetooth hci0: Direct firmware load for intel/ibt-12-16.sfi failed with error -2",
     "firmware_missing", PS_KMSG_WARN, PS_KNS_OTHER, "hci0", NONE, false, NULL, NULL},
    {"r8169 0000:03:00.0: Unable to load firmware rtl_nic/rtl8168h-2.fw (-2)", "firmware_missing",
     PS_KMSG_WARN, PS_KNS_PCI, "0000:03:00.0", NONE, false, NULL, NULL},
    /* PCIe AER (6.1 and before 5.x), DPC */
    {"pcieport 0000:00:1c.0: AER: Corrected error message received from 0000:01:00.0", "aer",
     PS_KMSG_WARN, PS_KNS_PCI, "0000:01:00.0", NONE, true, NULL, NULL},
    {"e1000e 0000:01:00.0: AER: PCIe Bus Error: severity=Corrected, type=Physical Layer, "
     "(Receiver ID)",
     "aer", PS_KMSG_WARN, PS_KNS_PCI, "0000:01:00.0", NONE, false,
     "corrected PCIe error (Physical Layer)", NULL},
    {.text = "e1000e 0000:01:00.0: AER:   device [8086:10d3] error status/mask=00000001/00002000"},
    {"e1000e 0000:01:00.0: AER:    [ 0] RxErr                  (First)", "aer", PS_KMSG_INFO,
     PS_KNS_PCI, "0000:01:00.0", NONE, true, NULL, "RxErr"},
    {"pcieport 0000:00:1c.0: AER: Corrected error received: 0000:00:1c.0", "aer", PS_KMSG_WARN,
     PS_KNS_PCI, "0000:00:1c.0", NONE, true, NULL, NULL},
    {"pcieport 0000:00:01.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction "
     "Layer, (Requester ID)",
     "aer", PS_KMSG_FAIL, PS_KNS_PCI, "0000:00:01.0", NONE, false, "Uncorrected (Fatal)", NULL},
    {"pcieport 0000:00:1d.0: DPC: containment event, status:0x1f01 source:0x0000", "pcie_dpc",
     PS_KMSG_FAIL, PS_KNS_PCI, "0000:00:1d.0", NONE, false, NULL, NULL},
    {"pcieport 0000:00:1c.4: pciehp: Slot(8): Link Down", "pcie_link_down", PS_KMSG_WARN,
     PS_KNS_PCI, "0000:00:1c.4", NONE, false, "Link Down", NULL},
    /* machine checks, thermal, EDAC */
    {"mce: [Hardware Error]: CPU 0: Machine Check: 0 Bank 5: be00000000800400", "mce", PS_KMSG_FAIL,
     PS_KNS_NONE, "", NONE, false, "uncorrected machine check on CPU 0 bank 5",
     "status 0xbe00000000800400"},
    {"mce: [Hardware Error]: CPU 2: Machine Check: 0 Bank 7: 8c000040000800c0", "mce", PS_KMSG_WARN,
     PS_KNS_NONE, "", NONE, false, "corrected machine check on CPU 2 bank 7", NULL},
    {"mce: [Hardware Error]: RIP !INEXACT! 10:<ffffffff8100b27a> {native_safe_halt+0xa/0x10}",
     "mce", PS_KMSG_INFO, PS_KNS_NONE, "", NONE, true, NULL, NULL},
    {"mce: [Hardware Error]: Machine check events logged", "mce", PS_KMSG_WARN, PS_KNS_NONE, "",
     NONE, false, "machine check events logged", NULL},
    {"mce: [Hardware Error]: Machine check: Processor context corrupt", "mce", PS_KMSG_FAIL,
     PS_KNS_NONE, "", NONE, true, NULL, "Processor context corrupt"},
    {"[Hardware Error]: Corrected error, no action required.", "mce", PS_KMSG_WARN, PS_KNS_NONE, "",
     NONE, true, NULL, "Corrected error"},
    {"mce: CMCI storm detected: switching to poll mode", "mce", PS_KMSG_WARN, PS_KNS_NONE, "", NONE,
     false, "CMCI storm", NULL},
    {"mce: CPU1: Package temperature above threshold, cpu clock throttled (total events = 1)",
     "cpu_throttle", PS_KMSG_WARN, PS_KNS_NONE, "", NONE, false,
     "CPU1: package temperature above threshold", NULL},
    {"EDAC MC0: 1 CE memory read error on CPU_SrcID#0_Ha#0_Chan#1_DIMM#0 (channel:1 slot:0 "
     "page:0x4e5d0 offset:0x840 grain:32 syndrome:0x0 - area:DRAM err_code:0001:0091 socket:0 "
     "ha:0 channel_mask:2 rank:1)",
     "edac_ce", PS_KMSG_WARN, PS_KNS_NONE, "MC0", NONE, false, "corrected memory error",
     "CPU_SrcID#0_Ha#0_Chan#1_DIMM#0"},
    {"EDAC MC1: 3 UE memory scrubbing error on unknown memory (page:0x0 offset:0x0 grain:8)",
     "edac_ue", PS_KMSG_FAIL, PS_KNS_NONE, "MC1", NONE, false, "uncorrected memory errors",
     "unknown"},
    {.text =
	 "EDAC MC0: Giving out device to module skx_edac controller Skylake Socket#0 IMC#0: DEV "
	 "0000:2e:0a.0 (INTERRUPT)"},
    /* kernel warnings, oopses, stalls */
    {"WARNING: CPU: 1 PID: 231 at drivers/net/ethernet/intel/e1000e/netdev.c:4734 "
     "e1000e_close+0x1b/0x120 [e1000e]",
     "kernel_warning", PS_KMSG_WARN, PS_KNS_NONE, "", NONE, false, "kernel warning",
     "drivers/net/ethernet/intel/e1000e/netdev.c:4734"},
    {"BUG: kernel NULL pointer dereference, address: 0000000000000008", "kernel_oops", PS_KMSG_FAIL,
     PS_KNS_NONE, "", NONE, false, "NULL pointer", NULL},
    {"Oops: 0000 [#1] PREEMPT SMP NOPTI", "kernel_oops", PS_KMSG_FAIL, PS_KNS_NONE, "", NONE, false,
     "Oops", NULL},
    {"general protection fault, probably for non-canonical address 0xdead000000000100: 0000 [#1] "
     "SMP PTI",
     "kernel_oops", PS_KMSG_FAIL, PS_KNS_NONE, "", NONE, false, NULL, NULL},
    {"watchdog: BUG: soft lockup - CPU#1 stuck for 23s! [probestick:412]", "kernel_stall",
     PS_KMSG_WARN, PS_KNS_NONE, "", NONE, false, "soft lockup", NULL},
    {"INFO: task probestick:412 blocked for more than 120 seconds.", "kernel_stall", PS_KMSG_WARN,
     PS_KNS_NONE, "", NONE, false, "blocked for more than", NULL},
    {"rcu: INFO: rcu_preempt self-detected stall on CPU", "kernel_stall", PS_KMSG_WARN, PS_KNS_NONE,
     "", NONE, false, NULL, NULL},
    /* USB */
    {"usb 2-1: reset high-speed USB device number 2 using xhci_hcd", "usb_reset", PS_KMSG_WARN,
     PS_KNS_USB, "2-1", NONE, false, "reset high-speed USB device", NULL},
    {"usb 2-1: USB disconnect, device number 2", "usb_disconnect", PS_KMSG_WARN, PS_KNS_USB, "2-1",
     NONE, false, NULL, NULL},
    {.text = "usb 2-1: new high-speed USB device number 2 using xhci_hcd"},
    /* the kernel's rate limit */
    {"blk_print_req_error: 27 callbacks suppressed", "ratelimited", PS_KMSG_INFO, PS_KNS_NONE, "",
     NONE, true, NULL, NULL},
    /* everyday lines that are no event */
    {.text = "EXT4-fs (sda1): mounted filesystem with ordered data mode. Quota mode: none."},
    {.text = "random: crng init done"},
    {.text = "e1000e 0000:01:00.0: Interrupt Throttling Rate (ints/sec) set to dynamic "
	     "conservative mode"},
    {.text = ""},
};

static void check_case(const struct dcase *c)
{
	struct ps_kmsg_hit h;
	bool hit = ps_kmsg_decode(c->text, &h);

	if (!c->rule) {
		if (hit)
			fprintf(stderr, "unexpected hit %s on \"%s\"\n", h.rule, c->text);
		CHECK(!hit);
		return;
	}
	if (!hit) {
		fprintf(stderr, "no hit on \"%s\"\n", c->text);
		CHECK(hit);
		return;
	}
	CHECK_STR(h.rule, c->rule);
	CHECK_INT(h.severity, c->sev);
	CHECK_INT(h.ns, c->ns);
	CHECK_STR(h.name, c->name);
	CHECK_INT(h.lba_first, c->lba_first);
	CHECK_INT(h.lba_last, c->lba_last);
	CHECK_INT(h.detail, c->detail);
	if (c->what && !strstr(h.what, c->what)) {
		fprintf(stderr, "what \"%s\" lacks \"%s\" (\"%s\")\n", h.what, c->what, c->text);
		CHECK(0);
	}
	if (c->note)
		CHECK_STR(h.note, c->note);
}

static void test_record_parse(void)
{
	struct ps_kmsg_record r;
	static const char rec[] = "3,1042,14784024,-;I/O error, dev sda, sector 8192 op "
				  "0x0:(READ)\n SUBSYSTEM=block\n DEVICE=b8:0\n";
	static const char esc[] = "3,7,5,-;ata1.00: cmd c8/00\\x0a         res 41/04 \\x5c end";
	static const char user[] = "12,99,100,-,caller=T1;probestick: hello";

	CHECK_INT(ps_kmsg_parse(rec, sizeof(rec) - 1, &r), 0);
	CHECK_INT(r.seq, 1042);
	CHECK_INT(r.usec, 14784024);
	CHECK_INT(r.level, 3);
	CHECK_INT(r.facility, 0);
	CHECK_STR(r.text, "I/O error, dev sda, sector 8192 op 0x0:(READ)");
	CHECK_INT(r.len, strlen(r.text));
	/* /dev/kmsg escapes newlines and backslashes as \xNN */
	CHECK_INT(ps_kmsg_parse(esc, sizeof(esc) - 1, &r), 0);
	CHECK_STR(r.text, "ata1.00: cmd c8/00\n         res 41/04 \\ end");
	CHECK_INT(ps_kmsg_parse(user, sizeof(user) - 1, &r), 0);
	CHECK_INT(r.facility, 1);
	CHECK_INT(r.level, 4);
	CHECK_STR(ps_kmsg_facility_name(r.facility), "user");
	CHECK_STR(ps_kmsg_level_name(r.level), "warning");
	CHECK(ps_kmsg_facility_name(24) == NULL);
	CHECK(ps_kmsg_level_name(8) == NULL);
	CHECK_STR(ps_kmsg_facility_name(23), "local7");
	/* broken headers */
	CHECK_INT(ps_kmsg_parse("no header", 9, &r), -EINVAL);
	CHECK_INT(ps_kmsg_parse("3,x,5,-;text", 12, &r), -EINVAL);
	CHECK_INT(ps_kmsg_parse("3,5;text", 8, &r), -EINVAL);
	CHECK_INT(ps_kmsg_parse("", 0, &r), -EINVAL);
	/* a text longer than the buffer is cut, never overrun */
	{
		size_t n = 8 + 3 * PS_KMSG_TEXT_MAX;
		char *big = malloc(n + 1);

		memcpy(big, "6,1,1,-;", 8);
		memset(big + 8, 'a', n - 8);
		big[n] = '\0';
		CHECK_INT(ps_kmsg_parse(big, n, &r), 0);
		CHECK_INT(r.len, PS_KMSG_TEXT_MAX - 1);
		free(big);
	}
}

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_case(&cases[i]);
	test_record_parse();
	CHECK_STR(ps_kmsg_sev_name(PS_KMSG_FAIL), "fail");
	CHECK_STR(ps_kmsg_sev_name(PS_KMSG_WARN), "warn");
	CHECK_STR(ps_kmsg_sev_name(PS_KMSG_INFO), "info");
	return check_done("test_kmsg_decode");
}
