# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""Toeplitz RSS hash, the function NICs (and rte_softrss) compute.

The input is the concatenation of the header fields in network byte order
(IPv4: source address, destination address, then for L4 hashing source
port, destination port). For every set bit of the input, counted from the
most significant bit of the first byte, the 32-bit window of the key that
starts at that bit position is XORed into the result.
"""

import ipaddress
import struct

# The 40-byte key of the Microsoft RSS verification suite.
MS_KEY = bytes.fromhex(
    "6d5a56da255b0ec24167253d43a38fb0d0ca2bcb"
    "ae7b30b477cb2da38030f20c6a42b73bbeac01fa")


def toeplitz_hash(key, data):
    """Return the 32-bit Toeplitz hash of data (bytes) under key (bytes)."""
    if len(key) < 4:
        raise ValueError("RSS key shorter than 4 bytes")
    if len(data) + 4 > len(key):
        raise ValueError("RSS key of %d bytes too short for %d input bytes"
                         % (len(key), len(data)))
    # The key as one big integer: a window is a shift and a mask away.
    key_int = int.from_bytes(key, "big")
    key_bits = len(key) * 8
    result = 0
    for i, byte in enumerate(data):
        for b in range(8):
            if byte & (0x80 >> b):
                pos = i * 8 + b
                result ^= (key_int >> (key_bits - 32 - pos)) & 0xffffffff
    return result


def ipv4_input(src, dst, sport=None, dport=None):
    """Hash input for an IPv4 packet: addresses, and ports when given."""
    data = ipaddress.IPv4Address(src).packed + ipaddress.IPv4Address(dst).packed
    if sport is not None:
        data += struct.pack("!HH", sport, dport)
    return data


def ipv6_input(src, dst, sport=None, dport=None):
    """Hash input for an IPv6 packet: addresses, and ports when given."""
    data = ipaddress.IPv6Address(src).packed + ipaddress.IPv6Address(dst).packed
    if sport is not None:
        data += struct.pack("!HH", sport, dport)
    return data


def reta_queue(reta, rss_hash):
    """Queue an indirection table sends a hash to (low bits index it)."""
    return reta[rss_hash % len(reta)]


def rss_action_queue(queues, rss_hash, table_max):
    """Queue an RSS action over a queue list sends a hash to. The
    driver's indirection table is the list itself when its length is a
    power of two, else a table of table_max entries (the device's largest)
    filled with the list repeated; the low bits of the hash index it."""
    n = len(queues)
    size = n if n & (n - 1) == 0 else table_max
    return queues[(rss_hash % size) % n]
