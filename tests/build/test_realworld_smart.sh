#!/usr/bin/env bash
# make test's fixed sample of the smart replay corpus (tests/realworld/smart/):
# one real drive per judgment (pending, reallocated, CRC, FAILED!, self-test
# log, NVMe read-only and media errors, no health status, a SAT answer with
# no identity, the 970 EVO with media errors, a USB bridge with no
# pass-through) through the smart step, each verdict and fact against its
# label and smartctl's own text. make realworld runs the whole corpus.
set -uo pipefail
cd "$(dirname "$0")/../.."
exec tests/realworld/run --sample smart
