#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""include/vsteer_prm.h against DPDK's own drivers/common/mlx5/mlx5_prm.h
(of the installed DPDK version, fetched by devtools/setup.sh), computed
independently: each struct mlx5_ifc_<name>_bits is read as the PRM
defines it (a sequence of "u8 field[bits]" and nested struct / union
members), every field's bit offset and width are summed from it, and
each VSTEER_PRM_* #define that names a field must equal what DPDK's
header says: the fte_match_param sections, the fields of
fte_match_set_lyr_2_4, misc, misc2 (MPLS entries, metadata registers)
and misc3 that vsteer uses, the match_criteria_enable bits, and the flow
counter commands (opcodes, mailboxes, traffic counters), the
QUERY_HCA_CAP command with the flow table capability bits read from it,
and the header modify actions (layout, types, field ids).
With --model, lib/mlx5model/mm_prm.h likewise: the mailbox headers and
the fields of the capability pages the mlx5 model answers QUERY_HCA_CAP
with."""

import argparse
import os
import re
import sys

# (our #define without _OFF/_LEN, DPDK path "struct.field[.field...]").
# For "+a+b" paths the field is a and b adjacent (a 48-bit MAC view).
FIELDS = [
    # fte_match_set_lyr_2_4 (outer_headers, inner_headers)
    ("L24_SMAC_47_16", "fte_match_set_lyr_2_4.smac_47_16"),
    ("L24_SMAC_15_0", "fte_match_set_lyr_2_4.smac_15_0"),
    ("L24_ETHERTYPE", "fte_match_set_lyr_2_4.ethertype"),
    ("L24_DMAC_47_16", "fte_match_set_lyr_2_4.dmac_47_16"),
    ("L24_DMAC_15_0", "fte_match_set_lyr_2_4.dmac_15_0"),
    ("L24_FIRST_PRIO", "fte_match_set_lyr_2_4.first_prio"),
    ("L24_FIRST_CFI", "fte_match_set_lyr_2_4.first_cfi"),
    ("L24_FIRST_VID", "fte_match_set_lyr_2_4.first_vid"),
    ("L24_IP_PROTOCOL", "fte_match_set_lyr_2_4.ip_protocol"),
    ("L24_IP_DSCP", "fte_match_set_lyr_2_4.ip_dscp"),
    ("L24_IP_ECN", "fte_match_set_lyr_2_4.ip_ecn"),
    ("L24_CVLAN_TAG", "fte_match_set_lyr_2_4.cvlan_tag"),
    ("L24_SVLAN_TAG", "fte_match_set_lyr_2_4.svlan_tag"),
    ("L24_FRAG", "fte_match_set_lyr_2_4.frag"),
    ("L24_IP_VERSION", "fte_match_set_lyr_2_4.ip_version"),
    ("L24_TCP_FLAGS", "fte_match_set_lyr_2_4.tcp_flags"),
    ("L24_TCP_SPORT", "fte_match_set_lyr_2_4.tcp_sport"),
    ("L24_TCP_DPORT", "fte_match_set_lyr_2_4.tcp_dport"),
    ("L24_IPV4_IHL", "fte_match_set_lyr_2_4.ipv4_ihl"),
    ("L24_TTL_HOPLIMIT", "fte_match_set_lyr_2_4.ip_ttl_hoplimit"),
    ("L24_UDP_SPORT", "fte_match_set_lyr_2_4.udp_sport"),
    ("L24_UDP_DPORT", "fte_match_set_lyr_2_4.udp_dport"),
    ("L24_SRC_IP", "fte_match_set_lyr_2_4.src_ipv4_src_ipv6"),
    ("L24_DST_IP", "fte_match_set_lyr_2_4.dst_ipv4_dst_ipv6"),
    ("L24_SRC_IPV4",
     "fte_match_set_lyr_2_4.src_ipv4_src_ipv6.ipv4_layout.ipv4"),
    ("L24_DST_IPV4",
     "fte_match_set_lyr_2_4.dst_ipv4_dst_ipv6.ipv4_layout.ipv4"),
    ("IPV4_IN_LAYOUT", "ipv4_layout.ipv4"),
    ("L24_SMAC", "fte_match_set_lyr_2_4.smac_47_16+smac_15_0"),
    ("L24_DMAC", "fte_match_set_lyr_2_4.dmac_47_16+dmac_15_0"),
    # fte_match_set_misc
    ("MISC_GRE_C_PRESENT", "fte_match_set_misc.gre_c_present"),
    ("MISC_GRE_K_PRESENT", "fte_match_set_misc.gre_k_present"),
    ("MISC_GRE_S_PRESENT", "fte_match_set_misc.gre_s_present"),
    # DPDK spells it vhci.
    ("MISC_SOURCE_VHCA_PORT", "fte_match_set_misc.source_vhci_port"),
    ("MISC_SOURCE_SQN", "fte_match_set_misc.source_sqn"),
    ("MISC_SOURCE_PORT", "fte_match_set_misc.source_port"),
    ("MISC_OUTER_SECOND_VID", "fte_match_set_misc.outer_second_vid"),
    ("MISC_INNER_SECOND_VID", "fte_match_set_misc.inner_second_vid"),
    ("MISC_OUTER_SECOND_CVLAN_TAG",
     "fte_match_set_misc.outer_second_cvlan_tag"),
    ("MISC_INNER_SECOND_CVLAN_TAG",
     "fte_match_set_misc.inner_second_cvlan_tag"),
    ("MISC_OUTER_SECOND_SVLAN_TAG",
     "fte_match_set_misc.outer_second_svlan_tag"),
    ("MISC_INNER_SECOND_SVLAN_TAG",
     "fte_match_set_misc.inner_second_svlan_tag"),
    ("MISC_GRE_PROTOCOL", "fte_match_set_misc.gre_protocol"),
    ("MISC_GRE_KEY", "fte_match_set_misc.gre_key_h+gre_key_l"),
    ("MISC_GRE_KEY_H", "fte_match_set_misc.gre_key_h"),
    ("MISC_GRE_KEY_L", "fte_match_set_misc.gre_key_l"),
    ("MISC_VXLAN_VNI", "fte_match_set_misc.vxlan_vni"),
    ("MISC_GENEVE_VNI", "fte_match_set_misc.geneve_vni"),
    ("MISC_OUTER_IPV6_FLOW_LABEL", "fte_match_set_misc.outer_ipv6_flow_label"),
    ("MISC_INNER_IPV6_FLOW_LABEL", "fte_match_set_misc.inner_ipv6_flow_label"),
    ("MISC_OUTER_ESP_SPI", "fte_match_set_misc.outer_esp_spi"),
    # fte_match_set_misc2 and its MPLS entries
    ("MISC2_OUTER_FIRST_MPLS", "fte_match_set_misc2.outer_first_mpls"),
    ("MISC2_INNER_FIRST_MPLS", "fte_match_set_misc2.inner_first_mpls"),
    ("MISC2_OUTER_FIRST_MPLS_OVER_GRE",
     "fte_match_set_misc2.outer_first_mpls_over_gre"),
    ("MISC2_OUTER_FIRST_MPLS_OVER_UDP",
     "fte_match_set_misc2.outer_first_mpls_over_udp"),
    ("MISC2_MPLS", "fte_match_set_misc2.outer_first_mpls"),
    ("MISC2_METADATA_REG_C_7", "fte_match_set_misc2.metadata_reg_c_7"),
    ("MISC2_METADATA_REG_C_0", "fte_match_set_misc2.metadata_reg_c_0"),
    ("MISC2_METADATA_REG_A", "fte_match_set_misc2.metadata_reg_a"),
    ("MISC2_METADATA_REG", "fte_match_set_misc2.metadata_reg_c_0"),
    ("MPLS_LABEL", "fte_match_mpls.mpls_label"),
    ("MPLS_EXP", "fte_match_mpls.mpls_exp"),
    ("MPLS_S_BOS", "fte_match_mpls.mpls_s_bos"),
    ("MPLS_TTL", "fte_match_mpls.mpls_ttl"),
    # fte_match_set_misc3
    ("MISC3_OUTER_VXLAN_GPE_VNI", "fte_match_set_misc3.outer_vxlan_gpe_vni"),
    ("MISC3_ICMP_TYPE", "fte_match_set_misc3.icmp_type"),
    ("MISC3_ICMP_CODE", "fte_match_set_misc3.icmp_code"),
    # flow counter commands: the command and output headers as the
    # counter mailboxes have them
    ("IN_OPCODE", "alloc_flow_counter_in.opcode"),
    ("IN_OP_MOD", "alloc_flow_counter_in.op_mod"),
    ("OUT_STATUS", "alloc_flow_counter_out.status"),
    ("OUT_SYNDROME", "alloc_flow_counter_out.syndrome"),
    ("ALLOC_FC_IN_BULK", "alloc_flow_counter_in.flow_counter_bulk"),
    ("ALLOC_FC_OUT_ID", "alloc_flow_counter_out.flow_counter_id"),
    ("DEALLOC_FC_IN_ID", "dealloc_flow_counter_in.flow_counter_id"),
    ("QUERY_FC_IN_MKEY", "query_flow_counter_in.mkey"),
    ("QUERY_FC_IN_ADDRESS", "query_flow_counter_in.address"),
    ("QUERY_FC_IN_CLEAR", "query_flow_counter_in.clear"),
    ("QUERY_FC_IN_DUMP_TO_MEMORY", "query_flow_counter_in.dump_to_memory"),
    ("QUERY_FC_IN_NUM_OF_COUNTERS", "query_flow_counter_in.num_of_counters"),
    ("QUERY_FC_IN_ID", "query_flow_counter_in.flow_counter_id"),
    ("QUERY_FC_OUT_STATS", "query_flow_counter_out.flow_statistics"),
    ("TRAFFIC_PACKETS", "traffic_counter.packets"),
    ("TRAFFIC_OCTETS", "traffic_counter.octets"),
    # QUERY_HCA_CAP of the NIC flow table capabilities
    ("QUERY_HCA_CAP_OUT_CAPABILITY", "query_hca_cap_out.capability"),
    ("FT_NIC_FIELD_SUPPORT_2_RX",
     "flow_table_nic_cap.ft_field_support_2_nic_receive"),
    ("FT_FIELDS_2_INNER_IPV4_IHL", "ft_fields_support_2.inner_ipv4_ihl"),
    ("FT_FIELDS_2_OUTER_IPV4_IHL", "ft_fields_support_2.outer_ipv4_ihl"),
    ("FT_NIC_RX_PROPS",
     "flow_table_nic_cap.flow_table_properties_nic_receive"),
    ("FT_NIC_TX_PROPS",
     "flow_table_nic_cap.flow_table_properties_nic_transmit"),
    ("FT_PROP_MAX_MODIFY_HEADER_ACTIONS",
     "flow_table_prop_layout.max_modify_header_actions"),
    # header modify actions
    ("MOD_TYPE", "set_action_in.action_type"),
    ("MOD_FIELD", "set_action_in.field"),
    ("MOD_OFFSET", "set_action_in.offset"),
    ("MOD_LENGTH", "set_action_in.length"),
    ("MOD_DATA", "set_action_in.data"),
    ("MOD_DST_FIELD", "copy_action_in.dst_field"),
    ("MOD_DST_OFFSET", "copy_action_in.dst_offset"),
]

# fte_match_param sections: our define is the bit offset.
SECTIONS = [
    ("OUTER", "outer_headers"), ("MISC", "misc_parameters"),
    ("INNER", "inner_headers"), ("MISC2", "misc_parameters_2"),
    ("MISC3", "misc_parameters_3"), ("MISC4", "misc_parameters_4"),
    ("MISC5", "misc_parameters_5"),
]

# Our define -> DPDK enumerator.
ENUMS = [
    ("CRIT_OUTER_BIT", "MLX5_MATCH_CRITERIA_ENABLE_OUTER_BIT"),
    ("CRIT_MISC_BIT", "MLX5_MATCH_CRITERIA_ENABLE_MISC_BIT"),
    ("CRIT_INNER_BIT", "MLX5_MATCH_CRITERIA_ENABLE_INNER_BIT"),
    ("CRIT_MISC2_BIT", "MLX5_MATCH_CRITERIA_ENABLE_MISC2_BIT"),
    ("CRIT_MISC3_BIT", "MLX5_MATCH_CRITERIA_ENABLE_MISC3_BIT"),
    ("CRIT_MISC4_BIT", "MLX5_MATCH_CRITERIA_ENABLE_MISC4_BIT"),
    ("CRIT_MISC5_BIT", "MLX5_MATCH_CRITERIA_ENABLE_MISC5_BIT"),
    ("CMD_ALLOC_FLOW_COUNTER", "MLX5_CMD_OP_ALLOC_FLOW_COUNTER"),
    ("CMD_QUERY_FLOW_COUNTER", "MLX5_CMD_OP_QUERY_FLOW_COUNTER"),
    ("CMD_QUERY_HCA_CAP", "MLX5_CMD_OP_QUERY_HCA_CAP"),
    ("HCA_CAP_OP_MOD_NIC_FLOW_TABLE", "MLX5_GET_HCA_CAP_OP_MOD_NIC_FLOW_TABLE"),
    ("HCA_CAP_OPMOD_GET_CUR", "MLX5_HCA_CAP_OPMOD_GET_CUR"),
    ("MOD_SET", "MLX5_MODIFICATION_TYPE_SET"),
    ("MOD_ADD", "MLX5_MODIFICATION_TYPE_ADD"),
    ("MOD_COPY", "MLX5_MODIFICATION_TYPE_COPY"),
    ("MODI_OUT_SMAC_47_16", "MLX5_MODI_OUT_SMAC_47_16"),
    ("MODI_OUT_SMAC_15_0", "MLX5_MODI_OUT_SMAC_15_0"),
    ("MODI_OUT_ETHERTYPE", "MLX5_MODI_OUT_ETHERTYPE"),
    ("MODI_OUT_DMAC_47_16", "MLX5_MODI_OUT_DMAC_47_16"),
    ("MODI_OUT_DMAC_15_0", "MLX5_MODI_OUT_DMAC_15_0"),
    ("MODI_OUT_IP_DSCP", "MLX5_MODI_OUT_IP_DSCP"),
    ("MODI_OUT_TCP_FLAGS", "MLX5_MODI_OUT_TCP_FLAGS"),
    ("MODI_OUT_TCP_SPORT", "MLX5_MODI_OUT_TCP_SPORT"),
    ("MODI_OUT_TCP_DPORT", "MLX5_MODI_OUT_TCP_DPORT"),
    ("MODI_OUT_IPV4_TTL", "MLX5_MODI_OUT_IPV4_TTL"),
    ("MODI_OUT_UDP_SPORT", "MLX5_MODI_OUT_UDP_SPORT"),
    ("MODI_OUT_UDP_DPORT", "MLX5_MODI_OUT_UDP_DPORT"),
    ("MODI_OUT_SIPV6_127_96", "MLX5_MODI_OUT_SIPV6_127_96"),
    ("MODI_OUT_SIPV6_95_64", "MLX5_MODI_OUT_SIPV6_95_64"),
    ("MODI_OUT_SIPV6_63_32", "MLX5_MODI_OUT_SIPV6_63_32"),
    ("MODI_OUT_SIPV6_31_0", "MLX5_MODI_OUT_SIPV6_31_0"),
    ("MODI_OUT_DIPV6_127_96", "MLX5_MODI_OUT_DIPV6_127_96"),
    ("MODI_OUT_DIPV6_95_64", "MLX5_MODI_OUT_DIPV6_95_64"),
    ("MODI_OUT_DIPV6_63_32", "MLX5_MODI_OUT_DIPV6_63_32"),
    ("MODI_OUT_DIPV6_31_0", "MLX5_MODI_OUT_DIPV6_31_0"),
    ("MODI_OUT_SIPV4", "MLX5_MODI_OUT_SIPV4"),
    ("MODI_OUT_DIPV4", "MLX5_MODI_OUT_DIPV4"),
    ("MODI_OUT_FIRST_VID", "MLX5_MODI_OUT_FIRST_VID"),
    ("MODI_OUT_IPV6_HOPLIMIT", "MLX5_MODI_OUT_IPV6_HOPLIMIT"),
    ("MODI_OUT_TCP_SEQ_NUM", "MLX5_MODI_OUT_TCP_SEQ_NUM"),
    ("MODI_OUT_TCP_ACK_NUM", "MLX5_MODI_OUT_TCP_ACK_NUM"),
    ("MODI_OUT_IP_ECN", "MLX5_MODI_OUT_IP_ECN"),
    ("MODI_IN_SMAC_47_16", "MLX5_MODI_IN_SMAC_47_16"),
    ("MODI_IN_DIPV4", "MLX5_MODI_IN_DIPV4"),
    ("MODI_META_DATA_REG_A", "MLX5_MODI_META_DATA_REG_A"),
    ("MODI_META_DATA_REG_B", "MLX5_MODI_META_DATA_REG_B"),
    ("MODI_META_REG_C_0", "MLX5_MODI_META_REG_C_0"),
    ("MODI_META_REG_C_7", "MLX5_MODI_META_REG_C_7"),
]

# Our define -> size in bits (or bytes with "/8") of a DPDK struct.
SIZES = [
    ("SECT_BITS", "fte_match_set_lyr_2_4", 1),
    ("SECT_BITS", "fte_match_set_misc", 1),
    ("SECT_BITS", "fte_match_set_misc2", 1),
    ("SECT_BITS", "fte_match_set_misc3", 1),
    ("SECT_BITS", "fte_match_set_misc4", 1),
    ("SECT_BITS", "fte_match_set_misc5", 1),
    ("MATCH_PARAM_BITS", "fte_match_param", 1),
    ("ALLOC_FC_IN_BYTES", "alloc_flow_counter_in", 8),
    ("ALLOC_FC_OUT_BYTES", "alloc_flow_counter_out", 8),
    ("DEALLOC_FC_IN_BYTES", "dealloc_flow_counter_in", 8),
    ("DEALLOC_FC_OUT_BYTES", "dealloc_flow_counter_out", 8),
    ("QUERY_FC_IN_BYTES", "query_flow_counter_in", 8),
    ("TRAFFIC_COUNTER_BITS", "traffic_counter", 1),
    ("QUERY_HCA_CAP_IN_BYTES", "query_hca_cap_in", 8),
    ("QUERY_HCA_CAP_OUT_BYTES", "query_hca_cap_out", 8),
    ("MOD_ACTION_BYTES", "set_action_in", 8),
    ("MOD_ACTION_BYTES", "copy_action_in", 8),
]

# What DPDK's header does not name, so this test cannot check it.
NOT_IN_DPDK = ["IN_UID (general_obj_in_cmd_hdr has reserved_at_10)",
               "CMD_DEALLOC_FLOW_COUNTER (no MLX5_CMD_OP_ enumerator)",
               "FT_NIC_MAX_ENCAP_HEADER_SIZE (flow_table_nic_cap has "
               "reserved_at_0; Linux's mlx5_ifc.h names it)"]
NOT_IN_DPDK_OFF = {"IN_UID_OFF", "FT_NIC_MAX_ENCAP_HEADER_SIZE_OFF"}

# lib/mlx5model/mm_prm.h (prefix MM_PRM_): our define -> DPDK path. The
# capability fields are named as DPDK names them: GEN_<FIELD> is
# cmd_hca_cap.<field>, ETH_<FIELD> per_protocol_networking_offload_caps,
# FT_PROP_<FIELD> flow_table_prop_layout, FT_FIELDS2_<FIELD>
# ft_fields_support_2.
MODEL_FIELDS = [
    ("IN_OPCODE", "general_obj_in_cmd_hdr.opcode"),
    ("IN_OP_MOD", "query_hca_cap_in.op_mod"),
    ("OUT_STATUS", "query_hca_cap_out.status"),
    ("OUT_SYNDROME", "query_hca_cap_out.syndrome"),
    ("QUERY_HCA_CAP_OUT_CAP", "query_hca_cap_out.capability"),
    ("FT_RX", "flow_table_nic_cap.flow_table_properties_nic_receive"),
    ("FT_TX", "flow_table_nic_cap.flow_table_properties_nic_transmit"),
    ("FT_FIELDS2_RX", "flow_table_nic_cap.ft_field_support_2_nic_receive"),
    ("ALLOC_FC_IN_BULK_LOG_SIZE",
     "alloc_flow_counter_in.flow_counter_bulk_log_size"),
    ("ALLOC_TD_OUT_TD", "alloc_transport_domain_out.transport_domain"),
    ("CREATE_TIS_OUT_TISN", "create_tis_out.tisn"),
    ("QUERY_TIS_IN_TISN", "query_tis_in.tisn"),
    ("QUERY_TIS_OUT_TD", "query_tis_out.tis_context.transport_domain"),
]
MODEL_PREFIXES = [
    ("GEN_", "cmd_hca_cap"),
    ("ETH_", "per_protocol_networking_offload_caps"),
    ("FT_PROP_", "flow_table_prop_layout"),
    ("FT_FIELDS2_", "ft_fields_support_2"),
]
MODEL_ENUMS = [
    ("CMD_QUERY_HCA_CAP", "MLX5_CMD_OP_QUERY_HCA_CAP", 1),
    ("CMD_QUERY_NIC_VPORT_CONTEXT", "MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT", 1),
    ("CMD_ALLOC_FLOW_COUNTER", "MLX5_CMD_OP_ALLOC_FLOW_COUNTER", 1),
    ("CMD_QUERY_FLOW_COUNTER", "MLX5_CMD_OP_QUERY_FLOW_COUNTER", 1),
    ("CMD_ALLOC_TRANSPORT_DOMAIN", "MLX5_CMD_OP_ALLOC_TRANSPORT_DOMAIN", 1),
    ("CMD_CREATE_TIS", "MLX5_CMD_OP_CREATE_TIS", 1),
    ("CMD_QUERY_TIS", "MLX5_CMD_OP_QUERY_TIS", 1),
    ("CAP_GENERAL", "MLX5_GET_HCA_CAP_OP_MOD_GENERAL_DEVICE", 2),
    ("CAP_ETHERNET_OFFLOADS",
     "MLX5_GET_HCA_CAP_OP_MOD_ETHERNET_OFFLOAD_CAPS", 2),
    ("CAP_NIC_FLOW_TABLE", "MLX5_GET_HCA_CAP_OP_MOD_NIC_FLOW_TABLE", 2),
    ("CAP_ROCE", "MLX5_GET_HCA_CAP_OP_MOD_ROCE", 2),
]
MODEL_SIZES = [
    ("CAP_PAGE_BYTES", "hca_cap_union", 8),
    ("QUERY_HCA_CAP_OUT_BYTES", "query_hca_cap_out", 8),
    ("QUERY_HCA_CAP_IN_BYTES", "query_hca_cap_in", 8),
    ("QUERY_TIS_IN_BYTES", "query_tis_in", 8),
    ("QUERY_TIS_OUT_BYTES", "query_tis_out", 8),
]
# Fields of Linux 6.1 include/linux/mlx5/mlx5_ifc.h that DPDK's header
# does not name.
MODEL_NOT_IN_DPDK = ["IN_UID", "IN_VHCA_TUNNEL_ID", "GEN_LOG_MAX_UCTX",
                     "ETH_TUNNEL_STATELESS_MPLS_OVER_UDP",
                     "ETH_TUNNEL_STATELESS_MPLS_OVER_GRE",
                     "FT_ENCAP_GENERAL_HEADER", "FT_MAX_ENCAP_HEADER_SIZE"]


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def preprocess(text):
    """Keep what the PRM defines: a #ifndef HAVE_INFINIBAND_VERBS_H block
    (the reserved tail of fte_match_param) is the PRM's own size."""
    out, stack = [], []
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("#if"):
            stack.append(s.startswith("#ifndef"))
            continue
        if s.startswith("#else"):
            stack[-1] = not stack[-1]
            continue
        if s.startswith("#endif"):
            stack.pop()
            continue
        if s.startswith("#"):
            continue
        if all(stack):
            out.append(line)
    return "\n".join(out)


class Prm:
    """struct/union mlx5_ifc_<name>_bits layouts of mlx5_prm.h."""

    def __init__(self, path, prefix="VSTEER_PRM_"):
        with open(path) as f:
            self.text = preprocess(strip_comments(f.read()))
        self.types = {}
        for m in re.finditer(r"\b(struct|union)\s+mlx5_ifc_(\w+)_bits\s*\{",
                             self.text):
            body, _ = self.block(m.end())
            self.types[m.group(2)] = (m.group(1), body)
        self.enums = {}
        for m in re.finditer(r"\benum\s*\w*\s*\{(.*?)\}", self.text, re.S):
            value = -1
            for item in m.group(1).split(","):
                item = item.strip()
                if not item:
                    continue
                name, _, expr = item.partition("=")
                if expr.strip():
                    value = self.constant(expr)
                elif value is not None:
                    value += 1
                self.enums[name.strip()] = value

    def constant(self, expr):
        """An enumerator's value, or None when it is not a plain integer
        expression (such enumerators are not checked)."""
        expr = re.sub(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]*\b", r"\1", expr)
        expr = re.sub(r"\b[A-Z_][A-Z0-9_]*\b",
                      lambda m: str(self.enums.get(m.group(0))), expr)
        if not re.fullmatch(r"[\s\d()xXa-fA-F<>|&+\-*~]+", expr):
            return None
        try:
            return int(eval(expr))  # noqa: S307
        except (SyntaxError, TypeError, ValueError):
            return None

    def block(self, start):
        depth, i = 1, start
        while depth:
            if self.text[i] == "{":
                depth += 1
            elif self.text[i] == "}":
                depth -= 1
            i += 1
        return self.text[start:i - 1], i

    def members(self, name):
        """[(field, bits, type name or None)] of a struct or union."""
        kind, body = self.types[name]
        return kind, self.parse_body(name, body)

    def parse_body(self, name, body):
        """The members of a body; an anonymous struct or union is one
        member of its size named None, whose fields field() looks into
        (its type is the body itself, as ("struct"|"union", body))."""
        result = []
        while True:
            m = re.search(r"\b(struct|union)\s*\{", body)
            if not m:
                break
            head = body[:m.start()]
            inner, end = self.block_in(body, m.end())
            semi = body.index(";", end)
            result += self.parse_decls(name, head)
            kind = m.group(1)
            sub = self.parse_body(name, inner)
            if kind == "union":
                bits = max(b for _, b, _ in sub)
            else:
                bits = sum(b for _, b, _ in sub)
            result.append((None, bits, (kind, inner)))
            body = body[semi + 1:]
        return result + self.parse_decls(name, body)

    @staticmethod
    def block_in(text, start):
        depth, i = 1, start
        while depth:
            if text[i] == "{":
                depth += 1
            elif text[i] == "}":
                depth -= 1
            i += 1
        return text[start:i - 1], i

    def parse_decls(self, name, body):
        result = []
        for decl in body.split(";"):
            decl = " ".join(decl.split())
            if not decl:
                continue
            m = re.fullmatch(r"u8 (\w+)((?:\[[^\]]*\])+)", decl)
            if m:
                bits = 1
                for dim in re.findall(r"\[([^\]]*)\]", m.group(2)):
                    bits *= int(dim, 0)
                result.append((m.group(1), bits, None))
                continue
            m = re.fullmatch(r"(?:struct|union) mlx5_ifc_(\w+)_bits (\w+)"
                             r"(\[[^\]]*\])?", decl)
            if not m:
                raise ValueError("mlx5_ifc_%s_bits: cannot read '%s'"
                                 % (name, decl))
            n = 1
            if m.group(3) is not None:
                dim = m.group(3)[1:-1]
                n = int(dim, 0) if dim else 0   # flexible: no size
            result.append((m.group(2), n * self.size(m.group(1)),
                           m.group(1)))
        return result

    def size(self, name):
        kind, mem = self.members(name)
        if kind == "union":
            return max(bits for _, bits, _ in mem)
        return sum(bits for _, bits, _ in mem)

    def field(self, name, path):
        """(bit offset, width) of path ("a.b.c") inside type name (a
        mlx5_ifc name, or an anonymous member's (kind, body))."""
        first, _, rest = path.partition(".")
        if isinstance(name, tuple):
            kind, mem = name[0], self.parse_body(name, name[1])
        else:
            kind, mem = self.members(name)
        off = 0
        for fname, bits, tname in mem:
            if fname is None:
                try:
                    sub_off, sub_bits = self.field(tname, path)
                    return off + sub_off, sub_bits
                except KeyError:
                    pass
            elif fname == first:
                if not rest:
                    return off, bits
                sub_off, sub_bits = self.field(tname, rest)
                return off + sub_off, sub_bits
            if kind == "struct":
                off += bits
        raise KeyError("mlx5_ifc_%s_bits has no field %s" % (name, first))


class Ours:
    """The #defines of include/vsteer_prm.h (or another header with its
    own prefix), evaluated."""

    def __init__(self, path, prefix="VSTEER_PRM_"):
        with open(path) as f:
            text = strip_comments(f.read()).replace("\\\n", " ")
        self.prefix = prefix
        self.raw = {}
        for m in re.finditer(r"^#define[ \t]+%s(\w+)[ \t]+(.+)$" % prefix, text,
                             re.M):
            self.raw[m.group(1)] = m.group(2).strip()

    def has(self, name):
        return name in self.raw

    def value(self, name):
        expr = re.sub(r"\b%s(\w+)" % self.prefix,
                      lambda m: "(%d)" % self.value(m.group(1)),
                      self.raw[name])
        if not re.fullmatch(r"[\s\d()+\-*/xXa-fA-F]+", expr):
            raise ValueError("%s%s: not a constant: %s"
                             % (self.prefix, name, self.raw[name]))
        return int(eval(expr.replace("/", "//")))  # noqa: S307


def check(prm, ours):
    bad, checked = [], 0

    def expect(what, got, want):
        nonlocal checked
        checked += 1
        if got != want:
            bad.append("%s: vsteer_prm.h 0x%x, DPDK mlx5_prm.h 0x%x"
                       % (what, got, want))

    for ours_name, path in FIELDS:
        tname, _, fields = path.partition(".")
        if "+" in fields:
            a, b = fields.split("+")
            off_a, len_a = prm.field(tname, a)
            off_b, len_b = prm.field(tname, b)
            if off_b != off_a + len_a:
                bad.append("%s: %s and %s are not adjacent" % (path, a, b))
            off, bits = off_a, len_a + len_b
        else:
            off, bits = prm.field(tname, fields)
        name = "VSTEER_PRM_" + ours_name
        has_off = ours.has(ours_name + "_OFF")
        has_len = ours.has(ours_name + "_LEN")
        if not has_off and not has_len:
            bad.append("%s_OFF/_LEN not defined" % name)
        if has_off:
            expect(name + "_OFF", ours.value(ours_name + "_OFF"), off)
        if has_len:
            expect(name + "_LEN", ours.value(ours_name + "_LEN"), bits)
    for ours_name, field in SECTIONS:
        off, bits = prm.field("fte_match_param", field)
        expect("VSTEER_PRM_" + ours_name, ours.value(ours_name), off)
        expect("VSTEER_PRM_SECT_BITS (%s)" % field, ours.value("SECT_BITS"),
               bits)
    for ours_name, enum in ENUMS:
        if enum not in prm.enums:
            bad.append("%s: DPDK has no %s" % (ours_name, enum))
            continue
        expect("VSTEER_PRM_" + ours_name, ours.value(ours_name),
               prm.enums[enum])
    for ours_name, tname, unit in SIZES:
        expect("VSTEER_PRM_%s (mlx5_ifc_%s_bits)" % (ours_name, tname),
               ours.value(ours_name), prm.size(tname) // unit)
    # Derived: the output header, and the one-counter query output.
    expect("VSTEER_PRM_OUT_HDR_BYTES", ours.value("OUT_HDR_BYTES"),
           prm.field("alloc_flow_counter_out", "flow_counter_id")[0] // 8)
    expect("VSTEER_PRM_QUERY_FC_OUT_BYTES", ours.value("QUERY_FC_OUT_BYTES"),
           (prm.field("query_flow_counter_out", "flow_statistics")[0] +
            prm.size("traffic_counter")) // 8)
    # A field added to vsteer_prm.h gets a row here or fails.
    covered = {n + "_OFF" for n, _ in FIELDS} | NOT_IN_DPDK_OFF
    for name in sorted(ours.raw):
        if name.endswith("_OFF") and name not in covered:
            bad.append("VSTEER_PRM_%s: no row in this test" % name)
    return bad, checked


def check_model(prm, ours):
    """lib/mlx5model/mm_prm.h against DPDK's header."""
    bad, checked = [], 0

    def expect(what, got, want):
        nonlocal checked
        checked += 1
        if got != want:
            bad.append("%s: mm_prm.h 0x%x, DPDK mlx5_prm.h 0x%x"
                       % (what, got, want))

    rows = list(MODEL_FIELDS)
    for name in sorted(ours.raw):
        if not name.endswith("_OFF"):
            continue
        base = name[:-4]
        if base in MODEL_NOT_IN_DPDK or any(r[0] == base for r in rows):
            continue
        for pfx, tname in MODEL_PREFIXES:
            if base.startswith(pfx):
                rows.append((base, tname + "." + base[len(pfx):].lower()))
                break
        else:
            bad.append("MM_PRM_%s: no row in this test" % name)
    for ours_name, path in rows:
        tname, _, field = path.partition(".")
        try:
            off, bits = prm.field(tname, field)
        except KeyError as exc:
            bad.append("MM_PRM_%s: %s" % (ours_name, exc))
            continue
        expect("MM_PRM_%s_OFF" % ours_name, ours.value(ours_name + "_OFF"),
               off)
        if ours.has(ours_name + "_LEN"):
            expect("MM_PRM_%s_LEN" % ours_name,
                   ours.value(ours_name + "_LEN"), bits)
    for ours_name, enum, scale in MODEL_ENUMS:
        if enum not in prm.enums:
            bad.append("%s: DPDK has no %s" % (ours_name, enum))
            continue
        expect("MM_PRM_" + ours_name, ours.value(ours_name) * scale,
               prm.enums[enum])
    for ours_name, tname, unit in MODEL_SIZES:
        expect("MM_PRM_%s (mlx5_ifc_%s_bits)" % (ours_name, tname),
               ours.value(ours_name), prm.size(tname) // unit)
    return bad, checked


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--prm", required=True, help="DPDK's mlx5_prm.h")
    ap.add_argument("--ours", required=True, help="include/vsteer_prm.h")
    ap.add_argument("--model", help="lib/mlx5model/mm_prm.h")
    args = ap.parse_args()
    if not os.path.isfile(args.prm):
        print("prm-offsets: %s not found: devtools/setup.sh fetches it "
              "from the source package of the installed DPDK" % args.prm)
        return 1
    prm = Prm(args.prm)
    bad, checked = check(prm, Ours(args.ours))
    if args.model:
        mbad, mchecked = check_model(prm, Ours(args.model, "MM_PRM_"))
        bad += mbad
        checked += mchecked
    for line in bad:
        print("prm-offsets: " + line)
    print("prm-offsets: %d values checked, %d differ; not in DPDK's "
          "header: %s" % (checked, len(bad), "; ".join(
              NOT_IN_DPDK + (["MM_PRM_" + n for n in MODEL_NOT_IN_DPDK]
                             if args.model else []))))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
