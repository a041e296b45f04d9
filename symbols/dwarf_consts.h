/* The DWARF constants the debugging-information reader uses (DWARF 5
 * §7.5.3-§7.5.6, §7.22, §7.25, §7.28), plus the GNU extensions GCC emits
 * in DWARF 4 split units. Only these: everything else is skipped by form. */
#ifndef SW_SYMBOLS_DWARF_CONSTS_H
#define SW_SYMBOLS_DWARF_CONSTS_H

/* Unit types (§7.5.1, Table 7.2). */
enum {
	SW_DW_UT_compile = 0x01, SW_DW_UT_type = 0x02, SW_DW_UT_partial = 0x03,
	SW_DW_UT_skeleton = 0x04, SW_DW_UT_split_compile = 0x05, SW_DW_UT_split_type = 0x06,
};

/* Tags (§7.5.3, Table 7.3). */
enum {
	SW_DW_TAG_class_type = 0x02, SW_DW_TAG_lexical_block = 0x0b,
	SW_DW_TAG_compile_unit = 0x11, SW_DW_TAG_structure_type = 0x13,
	SW_DW_TAG_union_type = 0x17, SW_DW_TAG_inlined_subroutine = 0x1d,
	SW_DW_TAG_try_block = 0x32, SW_DW_TAG_catch_block = 0x25,
	SW_DW_TAG_subprogram = 0x2e, SW_DW_TAG_interface_type = 0x38,
	SW_DW_TAG_namespace = 0x39, SW_DW_TAG_partial_unit = 0x3c,
	SW_DW_TAG_type_unit = 0x41, SW_DW_TAG_skeleton_unit = 0x4a,
};

/* Attributes (§7.5.4, Table 7.5). */
enum {
	SW_DW_AT_sibling = 0x01, SW_DW_AT_name = 0x03, SW_DW_AT_stmt_list = 0x10,
	SW_DW_AT_low_pc = 0x11, SW_DW_AT_high_pc = 0x12, SW_DW_AT_comp_dir = 0x1b,
	SW_DW_AT_abstract_origin = 0x31, SW_DW_AT_declaration = 0x3c,
	SW_DW_AT_specification = 0x47, SW_DW_AT_ranges = 0x55, SW_DW_AT_call_file = 0x58,
	SW_DW_AT_call_line = 0x59, SW_DW_AT_linkage_name = 0x6e,
	SW_DW_AT_str_offsets_base = 0x72, SW_DW_AT_addr_base = 0x73,
	SW_DW_AT_rnglists_base = 0x74,
	SW_DW_AT_MIPS_linkage_name = 0x2007,
	SW_DW_AT_GNU_ranges_base = 0x2132, SW_DW_AT_GNU_addr_base = 0x2133,
};

/* Forms (§7.5.6, Table 7.6), and GNU's (DebugFission, dwz). */
enum {
	SW_DW_FORM_addr = 0x01, SW_DW_FORM_block2 = 0x03, SW_DW_FORM_block4 = 0x04,
	SW_DW_FORM_data2 = 0x05, SW_DW_FORM_data4 = 0x06, SW_DW_FORM_data8 = 0x07,
	SW_DW_FORM_string = 0x08, SW_DW_FORM_block = 0x09, SW_DW_FORM_block1 = 0x0a,
	SW_DW_FORM_data1 = 0x0b, SW_DW_FORM_flag = 0x0c, SW_DW_FORM_sdata = 0x0d,
	SW_DW_FORM_strp = 0x0e, SW_DW_FORM_udata = 0x0f, SW_DW_FORM_ref_addr = 0x10,
	SW_DW_FORM_ref1 = 0x11, SW_DW_FORM_ref2 = 0x12, SW_DW_FORM_ref4 = 0x13,
	SW_DW_FORM_ref8 = 0x14, SW_DW_FORM_ref_udata = 0x15, SW_DW_FORM_indirect = 0x16,
	SW_DW_FORM_sec_offset = 0x17, SW_DW_FORM_exprloc = 0x18,
	SW_DW_FORM_flag_present = 0x19, SW_DW_FORM_strx = 0x1a, SW_DW_FORM_addrx = 0x1b,
	SW_DW_FORM_ref_sup4 = 0x1c, SW_DW_FORM_strp_sup = 0x1d, SW_DW_FORM_data16 = 0x1e,
	SW_DW_FORM_line_strp = 0x1f, SW_DW_FORM_ref_sig8 = 0x20,
	SW_DW_FORM_implicit_const = 0x21, SW_DW_FORM_loclistx = 0x22,
	SW_DW_FORM_rnglistx = 0x23, SW_DW_FORM_ref_sup8 = 0x24, SW_DW_FORM_strx1 = 0x25,
	SW_DW_FORM_strx2 = 0x26, SW_DW_FORM_strx3 = 0x27, SW_DW_FORM_strx4 = 0x28,
	SW_DW_FORM_addrx1 = 0x29, SW_DW_FORM_addrx2 = 0x2a, SW_DW_FORM_addrx3 = 0x2b,
	SW_DW_FORM_addrx4 = 0x2c,
	SW_DW_FORM_GNU_addr_index = 0x1f01, SW_DW_FORM_GNU_str_index = 0x1f02,
	SW_DW_FORM_GNU_ref_alt = 0x1f20, SW_DW_FORM_GNU_strp_alt = 0x1f21,
};

/* Range list entries (§7.25, Table 7.30). */
enum {
	SW_DW_RLE_end_of_list = 0x00, SW_DW_RLE_base_addressx = 0x01,
	SW_DW_RLE_startx_endx = 0x02, SW_DW_RLE_startx_length = 0x03,
	SW_DW_RLE_offset_pair = 0x04, SW_DW_RLE_base_address = 0x05,
	SW_DW_RLE_start_end = 0x06, SW_DW_RLE_start_length = 0x07,
};

/* Line number program (§7.22, Tables 7.25-7.27). */
enum {
	SW_DW_LNS_copy = 0x01, SW_DW_LNS_advance_pc = 0x02, SW_DW_LNS_advance_line = 0x03,
	SW_DW_LNS_set_file = 0x04, SW_DW_LNS_const_add_pc = 0x08,
	SW_DW_LNS_fixed_advance_pc = 0x09,
	SW_DW_LNE_end_sequence = 0x01, SW_DW_LNE_set_address = 0x02,
	SW_DW_LNCT_path = 0x1, SW_DW_LNCT_directory_index = 0x2,
};

#endif
