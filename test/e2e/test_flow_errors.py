#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""Refused rules in a real testpmd: for each, testpmd prints the PMD's
error (rte_flow_error type, a message naming the item, field or limit,
and the errno), `flow validate` says the same as `flow create`, and
nothing is left behind: `flow list 0` is empty and `flow dump 0 all`
shows no rule. The limits hold exactly: priorities 0 to 3 are taken
(verbs priority 3 * priority + sub-priority), 4 is not; queue 3 of 4 is
taken, 4 is not. Under flow_engine=auto (the default) a rule verbs cannot
express but the matcher can is made on the matcher; a rule neither can
express names what each engine lacks. Then what each forced engine alone
refuses (flow_engine=verbs, flow_engine=dv), in its own words; and egress
on a kernel that refused verbs egress rules (sv_verbs_egress=0): the
transmit table's matchers take them, unless they cannot count either
(sv_devx=0)."""

import re

import vsteer_e2e as e2e

QUEUES = 4
ENOTSUP = "Operation not supported"
EINVAL = "Invalid argument"

# (rule after "flow create 0 ", error type, type name, message, strerror)
COMMON = [
    ("ingress group 1 pattern eth / end actions queue index 1 / end",
     3, "group field",
     "group 1 not supported: rules live in one table (group 0)",
     ENOTSUP),
    ("ingress pattern eth / ipv4 / end actions queue index 4 / end",
     15, "action configuration",
     "QUEUE action: queue index 4 out of range (4 Rx queues configured)",
     EINVAL),
    ("ingress priority 4 pattern eth / end actions queue index 1 / end",
     4, "priority field",
     "priority 4 out of range: 4 levels available (0 to 3)", ENOTSUP),
    ("ingress pattern eth / ipv4 / end actions rss queues 1 7 end / end",
     15, "action configuration",
     "RSS action: queue[1] index 7 out of range (4 Rx queues configured)",
     EINVAL),
    ("ingress pattern eth / ipv4 / end actions mark id 16777200 / queue "
     "index 1 / end", 15, "action configuration",
     "MARK action: id 16777200 out of range, must be below 0xfffff0",
     EINVAL),
    ("ingress pattern eth / ipv4 src is 10.0.0.1 src last 10.0.0.9 / end "
     "actions queue index 1 / end", 11, "item specification range",
     "IPv4 item: src_addr: verbs cannot match a range (last) and the "
     "mlx5dv matcher cannot match a range (last)", ENOTSUP),
    ("ingress pattern eth / ipv4 ttl is 2 / end actions passthru / end",
     12, "item specification mask",
     "IPv4 item: time_to_live: verbs cannot match it; PASSTHRU action: "
     "the mlx5dv matcher cannot take it", ENOTSUP),
    ("ingress pattern eth / ipv4 / icmp / end actions queue index 1 / end",
     13, "specific pattern item", "item type 10 (ICMP) not supported",
     ENOTSUP),
    ("ingress pattern eth / ipv4 / udp / esp / end actions queue index 1 / "
     "end", 13, "specific pattern item", "ESP item cannot follow UDP item",
     EINVAL),
    ("ingress pattern eth / ipv4 / eth / end actions queue index 1 / end",
     13, "specific pattern item", "ETH item cannot follow IPv4 item",
     EINVAL),
    ("transfer pattern eth / end actions queue index 1 / end",
     7, "transfer field", "transfer not supported: the port has no "
     "E-Switch", ENOTSUP),
    ("egress pattern eth / ipv4 / end actions queue index 1 / end",
     16, "specific action",
     "QUEUE action: not supported on egress rules (DROP, COUNT, header "
     "rewrites and encap)",
     ENOTSUP),
    ("ingress pattern eth / ipv4 / end actions drop / mark id 3 / end",
     16, "specific action", "MARK action: cannot be combined with DROP",
     EINVAL),
    ("ingress pattern eth / ipv4 / end actions queue index 1 / drop / end",
     16, "specific action",
     "DROP action: a flow takes one fate action, QUEUE already given",
     EINVAL),
    ("ingress pattern eth / ipv4 / end actions count / end",
     16, "specific action",
     "no fate action: give QUEUE, RSS, DROP or PASSTHRU", EINVAL),
    ("ingress pattern eth / ipv4 / udp / end actions rss queues 0 1 end "
     "types ipv4-udp l3-src-only l3-dst-only end / end",
     15, "action configuration",
     "RSS action: L3_SRC_ONLY and L3_DST_ONLY are exclusive", EINVAL),
    # The default firmware has no MPLS parser: no engine can match it.
    ("ingress pattern eth / ipv4 / udp / mpls label is 77 / end actions "
     "queue index 3 / end", 13, "specific pattern item",
     "MPLS item: the device's firmware does not parse MPLS over GRE and "
     "UDP: set FLEX_PARSER_PROFILE_ENABLE=1 (mlxconfig)", ENOTSUP),
]

# A kernel that refused verbs egress rules (softverbs sv_verbs_egress=0):
# the driver's probe finds it and the transmit table's matchers take
# egress rules instead; where they cannot count either (no DevX:
# sv_devx=0), a counted egress rule is refused on the attribute, with
# what each engine lacks.
NO_EGRESS_MATCHER = [
    "egress pattern eth / ipv4 / end actions count / drop / end",
    "egress pattern eth / ipv4 / udp dst is 9 / end actions set_tp_dst "
    "port 10 / end",
]
NO_EGRESS = [
    ("egress pattern eth / ipv4 / end actions count / drop / end",
     6, "egress field", "attribute egress: verbs cannot take it: the device "
     "takes no egress rules; COUNT action: the mlx5dv matcher cannot take "
     "it: the device offers no DevX flow counters", ENOTSUP),
]

# Rules only the matcher expresses: made under auto, on a matcher.
MATCHER_ONLY = [
    "ingress pattern eth / ipv4 ttl is 2 / end actions queue index 1 / end",
    "ingress pattern eth / ipv6 hop is 60 / end actions queue index 1 / end",
    "ingress pattern eth / ipv4 / tcp flags is 2 / end actions queue index "
    "1 / end",
    "ingress pattern eth type is 0x0800 has_vlan is 0 / ipv4 "
    "fragment_offset spec 0 fragment_offset mask 0x3fff / end actions mark "
    "id 1 / rss / end",
]

VERBS_ONLY = [
    ("ingress pattern eth / ipv4 ttl is 2 / end actions queue index 1 / "
     "end", 12, "item specification mask",
     "IPv4 item: time_to_live: verbs cannot match it (flow_engine=verbs)",
     ENOTSUP),
    ("ingress pattern eth / ipv4 / tcp flags is 2 / end actions queue "
     "index 1 / end", 12, "item specification mask",
     "TCP item: tcp_flags: verbs cannot match it (flow_engine=verbs)",
     ENOTSUP),
    ("ingress pattern eth has_vlan is 0 / end actions queue index 1 / end",
     12, "item specification mask",
     "ETH item: has_vlan: verbs cannot match it (flow_engine=verbs)",
     ENOTSUP),
]

DV_ONLY = [
    ("ingress pattern eth / ipv4 / end actions passthru / end",
     16, "specific action",
     "PASSTHRU action: the mlx5dv matcher cannot take it (flow_engine=dv)",
     ENOTSUP),
    ("ingress pattern eth / ipv4 src is 10.0.0.1 src last 10.0.0.9 / end "
     "actions queue index 1 / end", 11, "item specification range",
     "IPv4 item: src_addr: the mlx5dv matcher cannot match a range (last) "
     "(flow_engine=dv)", ENOTSUP),
]


def check_nothing_left(tp, what):
    e2e.check_eq(tp.flow_list(), [], "flow list after %s" % what)
    out = tp.cmd("flow dump 0 all")
    e2e.check(not re.search(r"^flow rule \d+ ", out, re.M),
              "a rule is left in the device after %s:\n%s", what, out)


def check_refused(tp, cases):
    for rule, etype, tname, msg, errno_str in cases:
        for verb in ("validate", "create"):
            err = tp.flow_refused("flow %s 0 %s" % (verb, rule))
            what = "flow %s 0 %s" % (verb, rule)
            e2e.check_eq((err.type, err.type_name), (etype, tname),
                         "error type of " + what)
            if isinstance(msg, str):
                e2e.check_eq(err.message, msg, "message of " + what)
            else:
                e2e.check(msg.fullmatch(err.message),
                          "message of %s: %r", what, err.message)
            e2e.check_eq(err.strerror, errno_str, "errno of " + what)
        check_nothing_left(tp, "refusing: " + rule)
        e2e.log("refused (%s): %s" % (err.type_name, err.message))


def check_matcher_only(tp, rules=MATCHER_ONLY):
    """What verbs cannot express goes to a matcher under auto."""
    for rule in rules:
        out = tp.cmd("flow validate 0 " + rule)
        e2e.check("Flow rule validated" in out, "validate %s: %s", rule, out)
        rid = tp.flow_create("0 " + rule)
        dump = tp.cmd("flow dump 0 rule %d" % rid)
        e2e.check("engine mlx5dv, applied" in dump,
                  "%s not on a matcher:\n%s", rule, dump)
    tp.cmd("flow flush 0")
    check_nothing_left(tp, "flush")


def check_limits(tp):
    """The last priority level and queue index that are taken, and the
    verbs priority they map to."""
    for rule, verbs_prio in (
            ("ingress priority 3 pattern eth / ipv4 / udp dst is 9 / end "
             "actions queue index 3 / end", 9),     # 3 * 3 + 0 (L4)
            ("ingress priority 2 pattern eth / ipv4 dst is 10.0.0.1 / end "
             "actions queue index 3 / end", 7),     # 3 * 2 + 1 (L3)
            ("ingress priority 1 pattern eth dst is 02:00:00:00:00:01 / end "
             "actions queue index 0 / end", 5)):    # 3 * 1 + 2 (L2)
        out = tp.cmd("flow validate 0 " + rule)
        e2e.check("Flow rule validated" in out, "validate %s: %s", rule, out)
        rid = tp.flow_create("0 " + rule)
        dump = tp.cmd("flow dump 0 rule %d" % rid)
        e2e.check(re.search(r"attr: .* priority %d num_of_specs" % verbs_prio,
                            dump), "verbs priority %d not in the dump of "
                  "%s:\n%s", verbs_prio, rule, dump)
    tp.cmd("flow flush 0")
    check_nothing_left(tp, "flush")


def main(args):
    with e2e.VethNs() as net:
        with e2e.Testpmd(args.pmd, net.vdev(), rxq=QUEUES, txq=QUEUES,
                         testpmd=args.testpmd) as tp:
            check_refused(tp, COMMON)
            check_matcher_only(tp)
            check_limits(tp)
            e2e.check_eq(tp.quit(), 0, "testpmd exit status")
        with e2e.Testpmd(args.pmd, net.vdev(extra="flow_engine=verbs"),
                         rxq=QUEUES, txq=QUEUES, testpmd=args.testpmd) as tp:
            check_refused(tp, VERBS_ONLY)
            e2e.check_eq(tp.quit(), 0, "testpmd exit status")
        with e2e.Testpmd(args.pmd, net.vdev(extra="flow_engine=dv"),
                         rxq=QUEUES, txq=QUEUES, testpmd=args.testpmd) as tp:
            check_refused(tp, DV_ONLY)
            e2e.check_eq(tp.quit(), 0, "testpmd exit status")
        if e2e.model_mode():
            # sv_verbs_egress=0 makes a softverbs device lack what the
            # modelled ConnectX-5 has.
            e2e.log("a device without verbs egress rules: softverbs only")
            return
        with e2e.Testpmd(args.pmd, net.vdev(extra="sv_verbs_egress=0"),
                         rxq=QUEUES, txq=QUEUES, testpmd=args.testpmd) as tp:
            check_matcher_only(tp, NO_EGRESS_MATCHER)
            e2e.check_eq(tp.quit(), 0, "testpmd exit status")
        with e2e.Testpmd(args.pmd,
                         net.vdev(extra="sv_verbs_egress=0,sv_devx=0"),
                         rxq=QUEUES, txq=QUEUES, testpmd=args.testpmd) as tp:
            check_refused(tp, NO_EGRESS)
            e2e.check_eq(tp.quit(), 0, "testpmd exit status")


if __name__ == "__main__":
    e2e.run(main)
