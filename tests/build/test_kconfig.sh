#!/usr/bin/env bash
# The kconfig front end works on the real Kconfig: defconfig yields the
# documented defaults, a changed symbol survives olddefconfig, and the
# generated header and make fragment follow .config.
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
OUT=${OUT:-out}
KCONFIGLIB=/usr/lib/python3/dist-packages
kc() { srctree=$PWD KCONFIG_CONFIG=$tmp/.config PYTHONPATH=$KCONFIGLIB /usr/bin/python3 "$KCONFIGLIB/$1.py" "${@:2}"; }

test -s "$OUT/gen/Kconfig.steps" || scripts/gather-steps.sh "$OUT/gen" userland/steps/*.c
kc defconfig --kconfig Kconfig configs/defconfig >/dev/null
grep -qx 'CONFIG_SERIAL_SPEED=115200' "$tmp/.config"
grep -qx 'CONFIG_DEFAULT_PLAN="menu"' "$tmp/.config"
grep -qx 'CONFIG_DRV_NVME=y' "$tmp/.config"
grep -qx 'CONFIG_STEP_INVENTORY=y' "$tmp/.config"

# A user's choice survives olddefconfig; an out-of-range type is refused.
sed -i 's/^CONFIG_SERIAL_SPEED=.*/CONFIG_SERIAL_SPEED=9600/; s/^CONFIG_DRV_NVME=y/# CONFIG_DRV_NVME is not set/' "$tmp/.config"
kc olddefconfig Kconfig >/dev/null
grep -qx 'CONFIG_SERIAL_SPEED=9600' "$tmp/.config"
grep -qx '# CONFIG_DRV_NVME is not set' "$tmp/.config"

kc genconfig Kconfig --header-path "$tmp/autoconf.h" --config-out "$tmp/config.mk" >/dev/null
grep -q '#define CONFIG_SERIAL_SPEED 9600' "$tmp/autoconf.h"
! grep -q 'CONFIG_DRV_NVME' "$tmp/autoconf.h"
grep -qx 'CONFIG_STEP_INVENTORY=y' "$tmp/config.mk"
echo "kconfig: defconfig, olddefconfig and genconfig behave"
