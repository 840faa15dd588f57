# The Ironic test's machines and their power button (sourced by
# tests/ironic/run after tests/lib/qemu.sh). The nodes are manual-management:
# Ironic has no BMC to press, so the test does what the operator would, but
# at once: when Ironic powers a node on to inspect or deploy it, its QEMU
# starts; when Ironic powers it off, its QEMU stops (a machine that
# powers itself off, as probestick does after its plan, stays off).
#
#   pw_refresh                 every node's state from Ironic's API
#   pw_field NAME FIELD        one field of it (power_state, provision_state ...)
#   pw_follow TIMEOUT GOAL PHASE  press the buttons until the function GOAL
#                              succeeds (1 after TIMEOUT s); each boot's files
#                              in WORK/<name>-<PHASE>/
#   pw_done NAME STATE         the machine booted for STATE has powered itself off
#
# The machines (the Ironic test's header): NAMES, MAC (associative) and
# UUID (associative) come from the caller, disks live in WORK/disks/.

declare -A PW_RUNNING=() PW_BOOTED=() PW_STATUS=() PW_QWORK=() PW_QPID=()

pw_refresh() {
	ir_api "/v1/nodes?fields=uuid,name,power_state,provision_state,last_error,maintenance" \
		>"$WORK/nodes.json.tmp" 2>/dev/null && mv "$WORK/nodes.json.tmp" "$WORK/nodes.json"
}

pw_field() {
	jq -r --arg n "$1" --arg f "$2" '.nodes[] | select(.name == $n) | .[$f] // ""' "$WORK/nodes.json" 2>/dev/null
}

# pw_machine NAME DIR: describe the node's QEMU (tests/lib/qemu.sh) and start it.
pw_machine() {
	local n=$1 dir=$2
	mkdir -p "$WORK/disks"
	qm_new "$dir"
	case $n in
	psiron1)
		QM_SMP=2 QM_MEM=512
		qm_firmware bios || return 1
		qm_nic "${MAC[$n]}" e1000e tap:tap0 bootindex=0 || return 1
		qm_disk vd0 virtio PSIRON1A 6144 "$WORK/disks/$n-vd0.raw" || return 1
		;;
	psiron2)
		QM_SMP=1 QM_MEM=640
		qm_firmware uefi || return 1
		# no option ROM: the firmware's own PXE, as on a board whose NIC has no iPXE
		qm_nic "${MAC[$n]}" virtio-net-pci tap:tap1 bootindex=0,romfile= || return 1
		# every read of sectors 8192-8195 fails: a drive the rule must catch
		printf '[inject-error]\nevent = "read_aio"\nerrno = "5"\nsector = "8192"\n' >"$WORK/blkdebug.conf"
		qm_blkdebug sata0 "$WORK/blkdebug.conf"
		qm_disk sata0 sata PSIRON2A 5120 "$WORK/disks/$n-sata0.raw" || return 1
		qm_disk vd0 virtio PSIRON2B 4608 "$WORK/disks/$n-vd0.raw" || return 1
		;;
	*) return 1 ;;
	esac
	qm_start "${IRONIC_LIMIT:-600}" 240
}

# pw_reap NAME [kill]: the QEMU of the node ended (or is cut off, as a BMC
# would): its status recorded.
pw_reap() {
	local n=$1
	QM_WORK=${PW_QWORK[$n]} QM_PID=${PW_QPID[$n]}
	if [ "${2:-}" = kill ]; then
		qm_kill >/dev/null 2>&1
	else
		qm_wait >/dev/null 2>&1
	fi
	PW_STATUS[$n,${PW_RUNNING[$n]}]=$QM_STATUS
	ir_log "$n: QEMU ended after $QM_ELAPSED s ($QM_STATUS) in ${PW_RUNNING[$n]}"
	echo "$n ${PW_RUNNING[$n]}: $QM_STATUS after $QM_ELAPSED s" >>"$WORK/power.log"
	PW_RUNNING[$n]=""
}

pw_follow() {
	local goal=$2 phase=$3 until=$((SECONDS + $1)) n ps st
	while [ $SECONDS -lt $until ]; do
		pw_refresh
		for n in "${NODES[@]}"; do
			ps=$(pw_field "$n" power_state)
			st=$(pw_field "$n" provision_state)
			if [ -n "${PW_RUNNING[$n]:-}" ] && ! kill -0 "${PW_QPID[$n]}" 2>/dev/null; then
				pw_reap "$n"
			fi
			case "$ps/$st" in
			"power on/inspect wait" | "power on/active")
				[ -z "${PW_BOOTED[$n,$st]:-}" ] && [ -z "${PW_RUNNING[$n]:-}" ] || continue
				PW_BOOTED[$n,$st]=1
				echo "$n: Ironic powered it on ($st) at $((SECONDS - T0)) s" >>"$WORK/power.log"
				pw_machine "$n" "$WORK/$n-$phase" || fail "$n: QEMU did not start"
				PW_RUNNING[$n]=$st PW_QWORK[$n]=$QM_WORK PW_QPID[$n]=$QM_PID
				;;
			"power off/"*)
				[ -n "${PW_RUNNING[$n]:-}" ] || continue
				echo "$n: Ironic powered it off ($st) at $((SECONDS - T0)) s" >>"$WORK/power.log"
				pw_reap "$n" kill
				;;
			esac
		done
		"$goal" && return 0
		sleep 1
	done
	return 1
}

pw_done() {
	[ "${PW_STATUS[$1,$2]:-}" = poweroff ]
}
