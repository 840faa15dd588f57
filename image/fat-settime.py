#!/usr/bin/python3
# Set every timestamp in a FAT32 file system to one fixed time, so that the
# image does not depend on when it was built (mtools and the syslinux
# installer stamp entries with the current time and honour no SOURCE_DATE_EPOCH).
# Usage: fat-settime.py FILE OFFSET_BYTES EPOCH
import struct
import sys
import time


def fat_datetime(epoch):
    t = time.gmtime(max(epoch, 315532800))  # FAT cannot go before 1980
    date = ((t.tm_year - 1980) << 9) | (t.tm_mon << 5) | t.tm_mday
    clock = (t.tm_hour << 11) | (t.tm_min << 5) | (t.tm_sec // 2)
    return date, clock


def main():
    path, offset, epoch = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    date, clock = fat_datetime(epoch)
    with open(path, "r+b") as f:
        f.seek(offset)
        bs = f.read(512)
        bps, spc, reserved, nfats = struct.unpack_from("<HBHB", bs, 11)
        fatsz, = struct.unpack_from("<I", bs, 36)
        root, = struct.unpack_from("<I", bs, 44)
        if struct.unpack_from("<H", bs, 22)[0] != 0 or fatsz == 0:
            sys.exit(f"{path}: not a FAT32 file system at offset {offset}")
        fat_start = offset + reserved * bps
        data_start = fat_start + nfats * fatsz * bps
        clus_size = spc * bps

        def chain(c):
            seen = set()
            while 2 <= c < 0x0FFFFFF8 and c not in seen:
                seen.add(c)
                yield c
                f.seek(fat_start + 4 * c)
                c = struct.unpack("<I", f.read(4))[0] & 0x0FFFFFFF

        def walk(first):
            for c in list(chain(first)):
                pos = data_start + (c - 2) * clus_size
                f.seek(pos)
                buf = bytearray(f.read(clus_size))
                subdirs = []
                for i in range(0, clus_size, 32):
                    if buf[i] == 0:
                        break
                    attr = buf[i + 11]
                    if buf[i] == 0xE5 or attr == 0x0F:
                        continue
                    buf[i + 13] = 0  # creation time, tenths of a second
                    # creation time and date, last access date; offset 20 is the
                    # high word of the first cluster (FAT32): left as it is
                    struct.pack_into("<HHH", buf, i + 14, clock, date, date)
                    struct.pack_into("<HH", buf, i + 22, clock, date)
                    name = bytes(buf[i:i + 11])
                    if attr & 0x10 and name not in (b".          ", b"..         "):
                        hi, lo = struct.unpack_from("<H", buf, i + 20)[0], struct.unpack_from("<H", buf, i + 26)[0]
                        subdirs.append((hi << 16) | lo)
                f.seek(pos)
                f.write(buf)
                for d in subdirs:
                    walk(d)

        walk(root)


if __name__ == "__main__":
    main()
