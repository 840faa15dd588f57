#!/usr/bin/env bash
# The PCI replay corpus's fixed sample (tests/realworld/pci/README.md):
# real machines' lspci -vvnn through lspci2root and out/probestick's
# inventory; facts agree with lspci, verdicts with the labels, no idle link
# is called degraded and no labelled fault is missed.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
if [ ! -x "$OUT/probestick" ]; then
	echo "needs $OUT/probestick: run make first"
	exit 77
fi
tests/realworld/run --sample pci
