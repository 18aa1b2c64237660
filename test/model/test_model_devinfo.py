#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""rdma-core's own tools on the mlx5 model: ibv_devices lists the
modelled devices and ibv_devinfo -v describes a ConnectX-5 whose port is
active on Ethernet, through Debian's libibverbs and libmlx5 (found by
modalias in the model's sysfs, driven through the uverbs ABI)."""

import argparse
import re
import shutil
import subprocess
import sys

SKIP = 77


def run(args, cmd):
    argv = [args.wrapper, "--lib", args.lib, "--link", "mem:devinfo",
            "--link", "mem:devinfo", "--"] + cmd
    res = subprocess.run(argv, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, timeout=60)
    return res.returncode, res.stdout


def field(out, name):
    m = re.search(r"^\s*%s:\s*(.+)$" % re.escape(name), out, re.M)
    assert m, "no %s in:\n%s" % (name, out)
    return m.group(1).strip()


def fnv1a(s):
    h = 2166136261
    for c in s.encode():
        h = ((h ^ c) * 16777619) & 0xffffffff
    return h


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--wrapper", required=True)
    ap.add_argument("--lib", required=True)
    args = ap.parse_args()
    if not shutil.which("ibv_devinfo") or not shutil.which("ibv_devices"):
        print("ibverbs-utils is not installed (devtools/setup.sh does)")
        return SKIP

    # The MAC softverbs gives the two ends of the link, and the GUIDs
    # (EUI-64) the device must report from it.
    h = fnv1a("devinfo")
    guids = []
    for end in (0, 1):
        mac = [2, h >> 24 & 255, h >> 16 & 255, h >> 8 & 255, h & 255, end]
        g = [mac[0] ^ 2, mac[1], mac[2], 0xff, 0xfe, mac[3], mac[4], mac[5]]
        guids.append("".join("%02x" % b for b in g))

    rc, out = run(args, ["ibv_devices"])
    assert rc == 0, out
    listed = re.findall(r"^\s+(mlx5_\d+)\s+([0-9a-f]{16})\s*$", out, re.M)
    assert listed == [("mlx5_0", guids[0]), ("mlx5_1", guids[1])], out

    rc, out = run(args, ["ibv_devinfo", "-v", "-d", "mlx5_0"])
    assert rc == 0, out
    print(out)
    want = {
        "hca_id": "mlx5_0",
        "transport": "InfiniBand (0)",
        "fw_ver": "16.35.2000",
        "vendor_id": "0x02c9",
        "vendor_part_id": "4119",
        "board_id": "MT_0000000008",
        "phys_port_cnt": "1",
        "max_qp": "262144",
        "max_qp_wr": "32768",
        "max_sge": "30",
        "max_cq": "16777216",
        "max_cqe": "4194303",
        "max_mr": "16777216",
        "max_pd": "16777216",
        "max_rwq_indirection_table_size": "2048",
        "rx_hash_fields_mask": "0x800000FF",
        "max_wq_type_rq": "8388608",
        "hca_core_clock": "156250kHZ",
        "state": "PORT_ACTIVE (4)",
        "phys_state": "LINK_UP (5)",
        "link_layer": "Ethernet",
        "max_mtu": "4096 (5)",
        "active_mtu": "1024 (3)",
        "port_cap_flags": "0x04010000",
        "gid_tbl_len": "256",
    }
    for k, v in want.items():
        got = field(out, k)
        assert got == v, "%s: %r, want %r" % (k, got, v)
    g = guids[0]
    node_guid = ":".join(g[i:i + 4] for i in range(0, 16, 4))
    assert field(out, "node_guid") == node_guid, out
    for cap in ("C-VLAN stripping offload", "IP csum offload",
                "MANAGED_FLOW_STEERING", "RAW_IP_CSUM",
                "SUPPORT_RAW_PACKET"):
        assert cap in out, "%s missing" % cap
    gids = re.findall(r"GID\[\s*(\d+)\]:\s+(\S+), (RoCE v\d)", out)
    lla = "fe80:0000:0000:0000:" + node_guid
    assert gids[0] == ("0", lla, "RoCE v1"), gids
    assert gids[1][0] == "1" and gids[1][2] == "RoCE v2", gids
    assert len(gids) == 2, gids

    # A device the model does not have.
    rc, out = run(args, ["ibv_devinfo", "-d", "mlx5_2"])
    assert rc != 0 and "mlx5_2" in out, out
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
