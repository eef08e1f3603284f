#!/usr/bin/env python3
"""Compares where a bundle's gzip members start under several rules, on its own tar stream:
   1 MiB  a member every 1 MiB of the tar stream (mirror before 64 KiB cuts);
   N KiB  also a member right before a file's header once the member holds N KiB (mirror pack: 64).
Compresses the tar stream as each rule says with zlib (level 6, as mirror pack) and prints the
sizes, the number of members, and how many bytes a reader inflates before a file's first byte
(from the last member start before it). The 64 KiB rule must give the bundle's own size.
   scripts/bundle-cuts.py BUNDLE.tar.gz [N...]   (default N: 64)"""
import gzip, os, statistics, sys, zlib

MIB = 1 << 20
stream = gzip.decompress(open(sys.argv[1], "rb").read())

# Offsets of each file's first header (a pax header when it has one) and of its data.
files, position, group = [], 0, None
while position + 512 <= len(stream):
    block = stream[position:position + 512]
    if block == bytes(512):
        break
    size_field = block[124:136]
    size = int.from_bytes(size_field[1:], "big") if size_field[0] & 0x80 else int(size_field.strip(b"\0 ") or b"0", 8)
    kind = block[156:157]
    group = position if group is None else group
    position += 512 + (size + 511) // 512 * 512
    if kind == b"x":
        continue
    if kind in (b"0", b"\0"):
        files.append((group, position - (size + 511) // 512 * 512))
    group = None

def members(rule):
    starts, start = [0], 0
    for header, _ in files:
        while header - start >= MIB:
            start += MIB
            starts.append(start)
        if rule and header - start >= rule:
            start = header
            starts.append(start)
    while len(stream) - start > MIB:
        start += MIB
        starts.append(start)
    return starts

def measure(name, starts):
    size = 0
    for begin, end in zip(starts, starts[1:] + [len(stream)]):
        encoder = zlib.compressobj(6, zlib.DEFLATED, 31)
        size += len(encoder.compress(stream[begin:end]) + encoder.flush())
    skips = []
    for _, data in files:
        skips.append(data - max(s for s in starts if s <= data))
    print(f"{name:>7}: {size:>11,} bytes, {len(starts):>5} members, inflated before a file's data: "
          f"mean {statistics.mean(skips) / 1024:6.1f} KiB, median {statistics.median(skips) / 1024:6.1f} KiB, "
          f"max {max(skips) / 1024:6.1f} KiB")
    return size

print(f"{len(files)} files, tar stream {len(stream):,} bytes, bundle {os.path.getsize(sys.argv[1]):,} bytes")
old = measure("1 MiB", members(0))
for kib in [int(argument) for argument in sys.argv[2:]] or [64]:
    new = measure(f"{kib} KiB", members(kib << 10))
    print(f"size ratio {kib} KiB / 1 MiB: {new / old:.4f}")
