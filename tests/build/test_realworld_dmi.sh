#!/usr/bin/env bash
# The DMI replay's fixed sample (tests/realworld/dmi/replay, SAMPLE): twelve
# real machines' dmidecode text, one of each naming family and table shape
# (Intel ChannelA and Controller1-ChannelA, AMD P0 CHANNEL A on a two-socket
# EPYC, Supermicro's and Huawei's nodes, AMI's A1_DIMM0, Dell's processor
# letters, HP's SYSTEM ROM), rebuilt as --root trees and read by probestick:
# every DIMM field, slot count and labelled channel must agree with
# dmidecode and the hand labels, and no two channels may share a name.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
[ -x "$OUT/probestick" ] || { echo "skip: needs $OUT/probestick: run make first"; exit 77; }
OUT=$OUT tests/realworld/run --sample dmi
