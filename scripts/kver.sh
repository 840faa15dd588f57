#!/usr/bin/env bash
# Print the kernel release the image ships (e.g. 6.1.0-57-amd64): the one
# Debian's linux-headers-amd64 meta package points at.
set -euo pipefail
dep=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null) || {
	echo "kver: linux-headers-amd64 is not installed (run 'make deps')" >&2
	exit 1
}
dep=${dep%%[ ,]*}
echo "${dep#linux-headers-}"
