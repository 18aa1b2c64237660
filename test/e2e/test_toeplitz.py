#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""Toeplitz hash against the Microsoft RSS verification vectors."""

import sys

from toeplitz import (MS_KEY, ipv4_input, ipv6_input, reta_queue,
                      rss_action_queue, toeplitz_hash)

# (source, source port, destination, destination port, L3 hash, L4 hash)
IPV4_VECTORS = [
    ("66.9.149.187", 2794, "161.142.100.80", 1766, 0x323e8fc2, 0x51ccc178),
    ("199.92.111.2", 14230, "65.69.140.83", 4739, 0xd718262a, 0xc626b0ea),
    ("24.19.198.95", 12898, "12.22.207.184", 38024, 0xd2d0a5de, 0x5c2b394a),
    ("38.27.205.30", 48228, "209.142.163.6", 2217, 0x82989176, 0xafc7327f),
    ("153.39.163.191", 44251, "202.188.127.2", 1303, 0x5d1809c5, 0x10e828a2),
]

IPV6_VECTORS = [
    ("3ffe:2501:200:1fff::7", 2794, "3ffe:2501:200:3::1", 1766,
     0x2cc18cd5, 0x40207d3d),
    ("3ffe:501:8::260:97ff:fe40:efab", 14230, "ff02::1", 4739,
     0x0f0c461c, 0xdde51bbf),
    ("3ffe:1900:4545:3:200:f8ff:fe21:67cf", 44251, "fe80::200:f8ff:fe21:67cf",
     38024, 0x4b61e985, 0x02d1feef),
]


def main():
    failed = 0
    checked = 0
    for vectors, build in ((IPV4_VECTORS, ipv4_input),
                           (IPV6_VECTORS, ipv6_input)):
        for src, sport, dst, dport, l3, l4 in vectors:
            for want, data in ((l3, build(src, dst)),
                               (l4, build(src, dst, sport, dport))):
                got = toeplitz_hash(MS_KEY, data)
                checked += 1
                if got != want:
                    failed += 1
                    print("FAIL %s:%d -> %s:%d: got 0x%08x, want 0x%08x"
                          % (src, sport, dst, dport, got, want))
    # A zero input hashes to zero; a key too short for the input is refused.
    checked += 2
    if toeplitz_hash(MS_KEY, bytes(12)) != 0:
        failed += 1
        print("FAIL zero input")
    try:
        toeplitz_hash(MS_KEY[:16], bytes(16))
        failed += 1
        print("FAIL short key accepted")
    except ValueError:
        pass
    # The indirection table is indexed by the low bits of the hash.
    checked += 1
    reta = [0, 1, 2, 3] * 32
    if reta_queue(reta, 0x51ccc178) != 0x51ccc178 % 4:
        failed += 1
        print("FAIL reta lookup")
    # An RSS action's queue list: a power-of-two list is the table itself;
    # another is repeated over a table of the device's largest size.
    for queues, h, size, want in (([2, 3], 0x51ccc178, 512, 2),
                                  ([2, 3], 0x51ccc179, 512, 3),
                                  ([0, 1, 3], 513, 512, 1),
                                  ([0, 1, 3], 2, 512, 3),
                                  ([0, 1, 3], 511, 512, 1),
                                  ([5, 6, 7, 4], 6, 512, 7)):
        checked += 1
        got = rss_action_queue(queues, h, size)
        if got != want:
            failed += 1
            print("FAIL RSS queues %s, hash 0x%x: queue %d, want %d"
                  % (queues, h, got, want))
    print("%d passed, %d failed" % (checked - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
