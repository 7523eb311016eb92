#!/usr/bin/env python3
"""Generates tests/headers/*.txt (raw header text bytes, one case per file)."""
import io
import os
import pprint
import sys

import numpy as np

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "headers")
cases = {}


def add(name, data):
    if isinstance(data, str):
        data = data.encode("latin-1")
    assert name not in cases, name
    assert name[:2] in ("y_", "n_", "i_"), name
    cases[name + ".txt"] = data


def u8(s):
    return s.encode("utf-8")


def d(descr="'<f8'", shape="(2, 3)", fo="False", end="\n"):
    """A header as np.save lays it out (sorted keys, trailing ', '), unpadded."""
    return "{'descr': %s, 'fortran_order': %s, 'shape': %s, }%s" % (descr, fo, shape, end)


def pad(dict_text, align, version=1, spaces_then_newline=True, min_one=True):
    """Pads like NumPy: spaces then newline so that preamble+header is aligned."""
    pre = 10 if version == 1 else 12
    if isinstance(dict_text, str):
        dict_text = dict_text.encode("latin-1")
    n = pre + len(dict_text) + 1
    padlen = (align - n % align) % align
    if min_one and padlen == 0:
        padlen = align
    return dict_text + b" " * padlen + b"\n"


def np_save_header(arr):
    b = io.BytesIO()
    np.save(b, arr)
    v = b.getvalue()
    off = 10 if v[6] == 1 else 12
    hl = int.from_bytes(v[8:off], "little")
    return v[6], v[off:off + hl]


# ---------------------------------------------------------------- writers --
# Exact headers real writers emit for a 2x3 float64 array (and a few neighbours).
ver, h = np_save_header(np.zeros((2, 3)))
assert ver == 1 and len(h) == 118 and h == pad(d(end=""), 64)
add("y_writer_numpy_ge_1_14_2x3_f8", h)  # 1.14..1.23 (64-aligned) == >=1.24 here: growth spaces fold into padding
add("y_writer_numpy_2x3_f8_fortran", np_save_header(np.zeros((2, 3), order="F"))[1])
add("y_writer_numpy_1d", np_save_header(np.zeros(3))[1])
add("y_writer_numpy_0d", np_save_header(np.zeros(()))[1])
rec = np.dtype({"names": ["a", "b"], "formats": ["<f8", "<i2"], "offsets": [0, 12], "itemsize": 16})
ver, h = np_save_header(np.zeros(2, dtype=rec))
assert len(h) == 182  # >= 1.24: 20 growth spaces push the header over a 64-byte boundary
add("y_writer_numpy_ge_1_24_growth_spaces_cross_64", h)
add("y_writer_numpy_1_14_to_1_23_same_record", pad(h.rstrip(b" \n"), 64))
add("y_writer_numpy_record_subarray", np_save_header(np.zeros(2, dtype=[("a", "<f8"), ("b", "<i4", (2, 3))]))[1])
add("y_writer_numpy_record_title", np_save_header(np.zeros(2, dtype=[(("title A", "a"), "<f8")]))[1])
add("y_writer_numpy_nested_record", np_save_header(np.zeros(2, dtype=[("outer", [("inner", "<u2")])]))[1])
add("y_writer_numpy_name_with_quote", np_save_header(np.zeros(2, dtype=[("it's", "<f8")]))[1])
add("y_writer_numpy_name_repr_escapes", np_save_header(np.zeros(2, dtype=[("a\\b\n\x7f\u200b", "<f8")]))[1])
ver, h = np_save_header(np.zeros(2, dtype=[("\xe9", "<f8")]))
assert ver == 1 and b"\xe9" in h
add("y_writer_numpy_latin1_name_raw_byte", h)
import warnings
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    ver, h = np_save_header(np.zeros(2, dtype=[("\u65e5", "<f8")]))
assert ver == 3
add("y_writer_numpy_utf8_name__v3", h)
add("y_writer_numpy_datetime_multiple", np_save_header(np.zeros(2, dtype=">M8[25s]"))[1])
add("y_writer_numpy_pre_1_14_2x3_f8", pad(d(end=""), 16))  # 16-aligned: 10 spaces
assert pad(d(end=""), 16) == d(end="") .encode() + b" " * 10 + b"\n"


def cnpy(descr, dims):
    s = "{'descr': '%s', 'fortran_order': False, 'shape': (%s%s), }" % (
        descr, ", ".join(map(str, dims)), "," if len(dims) == 1 else "")
    remainder = 16 - (10 + len(s)) % 16
    s = s + " " * remainder
    return s[:-1] + "\n"


assert cnpy("<f8", [2, 3]) == pad(d(end=""), 16).decode()
add("y_writer_cnpy_2x3_f8", cnpy("<f8", [2, 3]))  # same bytes as NumPy < 1.14
add("y_writer_cnpy_1d_i4", cnpy("<i4", [3]))
add("y_writer_cnpy_u1", cnpy("<u1", [2, 3]))
add("y_writer_cnpy_b1", cnpy("<b1", [4]))
h = cnpy("<f4", [10, 20, 30, 40])
assert h.endswith("}\n")  # cnpy: 0 spaces when the dict already ends at 15 mod 16
add("y_writer_cnpy_no_padding_spaces", h)


def libnpy(descr, dims, fortran=False):
    if not dims:
        t = "()"
    elif len(dims) == 1:
        t = "(%d,)" % dims[0]
    else:
        t = "(" + ", ".join(map(str, dims)) + ")"
    s = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, "True" if fortran else "False", t)
    length = 6 + 2 + 2 + len(s) + 1
    return s + " " * (16 - length % 16) + "\n"


assert libnpy("<f8", [2, 3]) == pad(d(end=""), 16).decode()
add("y_writer_libnpy_2x3_f8", libnpy("<f8", [2, 3]))  # same bytes as NumPy < 1.14
add("y_writer_libnpy_u1_3d", libnpy("|u1", [2, 3, 4]))
add("y_writer_libnpy_i1_fortran", libnpy("|i1", [2, 3], True))
h = libnpy("<f8", [2, 3, 4, 5, 60])
assert h.endswith(" " * 16 + "\n")  # libnpy: 16 spaces when already aligned
add("y_writer_libnpy_16_spaces_when_aligned", h)
add("y_writer_libnpy_long_double", libnpy("<f16", [2, 3]))


def npzjl(descr, dims):
    t = "()" if not dims else ("(%d,)" % dims[0] if len(dims) == 1 else "(" + ", ".join(map(str, dims)) + ")")
    s = "{'descr': '%s', 'fortran_order': True, 'shape': %s, }" % (descr, t)
    n = 10 + len(s)
    p = (n + 15) // 16 * 16 - n
    if p > 0:
        s += " " * (p - 1) + "\n"
    return s


h = npzjl("<f8", [2, 3])
assert len(h) == 70
add("y_writer_npz_jl_2x3_f8", h)
h = npzjl("<u1", [20, 30, 40, 5, 6])
assert h.endswith("}")
add("y_writer_npz_jl_aligned_no_final_newline", h)
add("y_writer_npz_jl_0d", npzjl("<i8", []))
add("y_writer_npz_jl_1d_b1", npzjl("<b1", [5]))


def npyz_pad(s):
    s = s.encode("utf-8")
    return s + b" " * (64 - 1 - (len(s) + 10) % 64) + b"\n"


add("y_writer_npyz_2x3_f8", npyz_pad("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3, ), }"))
add("y_writer_npyz_1d", npyz_pad("{'descr': '<i4', 'fortran_order': False, 'shape': (5, ), }"))
add("y_writer_npyz_record", npyz_pad("{'descr': [('a', '<f8'), ('b', '<u1'), ], 'fortran_order': False, 'shape': (2, 3, ), }"))
add("y_writer_npyz_record_subarray", npyz_pad("{'descr': [('a', '<i4', (2,3,)), ], 'fortran_order': False, 'shape': (4, ), }"))
add("y_writer_npyz_nested_record", npyz_pad("{'descr': [('parent', [('child', '<i4'), ]), ], 'fortran_order': False, 'shape': (2, ), }"))
# begin_1d: the shape is a 19-char placeholder rewritten in place as "6,), }" + spaces.
h = npyz_pad("{'descr': '<f8', 'fortran_order': False, 'shape': (" + "*" * 19 + ",), }")
h = h.replace(b"*" * 19 + b",), }", b"6,), }" + b" " * 18)
add("y_writer_npyz_1d_streaming", h)


def ndarray_npy(s):
    n = 10 + len(s) + 1
    return s + " " * (64 - n % 64) + "\n"


h = ndarray_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3)}")
assert len(h) == 118
add("y_writer_ndarray_npy_2x3_f8", h)
add("y_writer_ndarray_npy_1d", ndarray_npy("{'descr': '<i2', 'fortran_order': False, 'shape': (7,)}"))
add("y_writer_ndarray_npy_record", ndarray_npy("{'descr': [('x', '<f4'), ('y', '<f4')], 'fortran_order': True, 'shape': (2, 3)}"))

h = pad("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3)}", 16)
add("y_writer_numpy_1_1_pprint", h)
wrapped = pprint.pformat({"descr": [("alpha_channel", "<f8"), ("beta_channel", "<i4"), ("gamma_channel", "|S10")],
                          "fortran_order": False, "shape": (2, 3)})
assert "\n" in wrapped
add("y_writer_numpy_1_1_pprint_wrapped", pad(wrapped, 16))
add("y_writer_python2_win64_long_dims", pad(d(shape="(2L, 3L)", end=""), 64))
add("y_writer_python2_win64_long_1d", pad(d(shape="(3L,)", end=""), 64))
add("y_writer_python2_long_dims__v2", pad(d(shape="(2L, 3L)", end=""), 64, version=2))
add("y_writer_python2_record_subarray_long", pad(d(descr="[('a', '<f8', (2L,))]", shape="(3L,)", end=""), 64))
add("y_writer_newline_then_space_padding", d(end="\n") + " " * 57)

# ------------------------------------------------------------ dict syntax --
add("y_keys_shape_first", "{'shape': (2, 3), 'fortran_order': False, 'descr': '<f8'}\n")
add("y_keys_fortran_first", "{'fortran_order': False, 'descr': '<f8', 'shape': (2, 3)}\n")
add("y_double_quoted_keys", '{"descr": "<f8", "fortran_order": False, "shape": (2, 3), }\n')
add("y_mixed_quotes", "{\"descr\": '<f8', 'fortran_order': False, \"shape\": (2, 3)}\n")
add("y_trailing_comma_no_space", "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3),}\n")
add("y_trailing_comma_then_whitespace", "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3) ,\n\t}\n")
add("y_no_whitespace_at_all", "{'descr':'<f8','fortran_order':False,'shape':(2,3)}")
add("y_ws_tab_between_tokens", "{\t'descr'\t:\t'<f8'\t,\t'fortran_order'\t:\tFalse\t,\t'shape'\t:\t(\t2\t,\t3\t)\t,\t}\n")
add("y_ws_newline_between_tokens", "{\n'descr'\n:\n'<f8'\n,\n'fortran_order'\n:\nFalse\n,\n'shape'\n:\n(\n2\n,\n3\n)\n}\n")
add("y_ws_cr_between_tokens", "{'descr':\r'<f8',\r'fortran_order':\rFalse,\r'shape':\r(2,\r3)}\r")
add("y_ws_crlf_between_tokens", "{'descr': '<f8',\r\n 'fortran_order': False,\r\n 'shape': (2, 3)}\r\n")
add("y_ws_formfeed_between_tokens", "{'descr':\x0c'<f8',\x0c'fortran_order':\x0cFalse,\x0c'shape':\x0c(2,\x0c3)}\x0c")
add("y_ws_all_kinds_mixed", "{ \t\n\r\x0c'descr' \t\n\r\x0c: \t\n\r\x0c'<f8' \t\n\r\x0c, 'fortran_order': False, 'shape': ( \t\n\r\x0c2 \t\n\r\x0c, 3 \x0c) \r}\n")
add("y_padding_all_whitespace_kinds", "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3)}\x0c\r\n\t \n")
add("y_padding_none", "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }")
add("y_padding_only_newlines", "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }\n\n\n")
# Padding whose last line is indented: Python's tokenizer refuses it (IndentationError); NumPy's
# Python 2 filter (1.0/2.0) repairs a last LF line, not a last lone-CR line. DEVIATIONS b6.
add("i_padding_newline_then_spaces__v3", u8(d(end="\n") + " " * 57))
add("i_padding_newline_then_tab__v3", u8(d(end="\n\t")))
add("i_padding_cr_then_spaces", d(end="\r") + "   ")
add("i_long_suffix_padding_cr_then_formfeed", d(shape="(2L, 3L)", end="\r \x0c"))
add("y_string_value_holding_shape_text_is_a_name", d(descr="[(\"'shape': (3,)\", '<f8')]", shape="(2,)"))
add("y_key_written_with_hex_escape", "{'d\\x65scr': '<f8', 'fortran_order': False, 'shape': (2, 3)}\n")
add("y_descr_written_with_escapes", "{'descr': '\\x3cf\\u0038', 'fortran_order': False, 'shape': (2, 3)}\n")
add("y_escaped_quotes_in_both_quote_styles", d(descr="[('a\\'b\\\"c', '<f8'), (\"d\\'e\\\"f\", '<f8')]", shape="(2,)"))

add("n_header-syntax__leading_space", " " + d())
add("n_header-syntax__leading_tab", "\t" + d())
add("n_header-syntax__leading_newline", "\n" + d())
add("n_header-syntax__leading_formfeed", "\x0c" + d())
add("n_header-syntax__leading_cr", "\r" + d())
add("n_header-syntax__vertical_tab_between_tokens", "{'descr':\x0b'<f8', 'fortran_order': False, 'shape': (2, 3)}\n")
add("n_header-syntax__latin1_nbsp_between_tokens", "{'descr':\xa0'<f8', 'fortran_order': False, 'shape': (2, 3)}\n")
add("n_header-syntax__latin1_nel_between_tokens", "{'descr':\x85'<f8', 'fortran_order': False, 'shape': (2, 3)}\n")
add("n_header-syntax__nbsp_between_tokens__v3", u8("{'descr':\u00a0'<f8', 'fortran_order': False, 'shape': (2, 3)}\n"))
add("n_header-syntax__line_separator_between_tokens__v3", u8("{'descr':\u2028'<f8', 'fortran_order': False, 'shape': (2, 3)}\n"))
add("n_header-syntax__ideographic_space_between_tokens__v3", u8("{'descr':\u3000'<f8', 'fortran_order': False, 'shape': (2, 3)}\n"))
add("n_header-syntax__bom__v3", u8("\ufeff" + d()))
add("n_header-syntax__text_after_brace", d(end=" x\n"))
add("n_header-syntax__second_brace_after_dict", d(end="}\n"))
add("n_header-syntax__comma_after_brace", d(end=",\n"))
add("n_header-syntax__semicolon_after_brace", d(end=";\n"))
add("n_header-syntax__vertical_tab_in_padding", d(end="\x0b\n"))
add("n_header-syntax__latin1_nbsp_in_padding", d(end="  \xa0\n"))
add("n_header-syntax__comment_after_brace", d(end="  # written by hand\n"))
add("n_header-syntax__comment_hides_bytes", d(end="#\x01\x02\xff\xfe\n"))
add("n_header-syntax__comment_inside_dict", "{'descr': '<f8',  # float64\n 'fortran_order': False, 'shape': (2, 3)}\n")
add("n_header-syntax__line_continuation_inside_dict", "{'descr': '<f8', 'fortran_order': False, 'shape': \\\n(2, 3)}\n")
add("n_header-syntax__line_continuation_after_brace", d(end=" \\\n"))
add("n_header-syntax__empty", "")
add("n_header-syntax__only_whitespace", "   \n")
add("n_header-syntax__list_not_dict", "[('descr', '<f8')]\n")
add("n_header-syntax__string_not_dict", "'descr'\n")
add("n_header-syntax__truncated_dict", "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3)\n")
add("n_header-syntax__truncated_in_string", "{'descr': '<f8")
add("n_header-syntax__missing_colon", "{'descr' '<f8', 'fortran_order': False, 'shape': (2, 3)}\n")
add("n_header-syntax__double_colon", "{'descr':: '<f8', 'fortran_order': False, 'shape': (2, 3)}\n")
add("n_header-syntax__missing_comma_between_entries", "{'descr': '<f8' 'fortran_order': False, 'shape': (2, 3)}\n")
add("n_header-syntax__double_comma_between_entries", "{'descr': '<f8',, 'fortran_order': False, 'shape': (2, 3)}\n")
add("n_header-syntax__double_trailing_comma", "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3),,}\n")
add("n_header-syntax__leading_comma_in_dict", "{, 'descr': '<f8', 'fortran_order': False, 'shape': (2, 3)}\n")
add("n_header-syntax__integer_key", "{1: '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (2, 3)}\n")
add("n_header-syntax__none_key", "{None: 1, 'descr': '<f8', 'fortran_order': False, 'shape': (2, 3)}\n")
add("n_header-syntax__set_not_dict", "{'descr', 'fortran_order', 'shape'}\n")
add("n_header-syntax__dict_call", "dict(descr='<f8', fortran_order=False, shape=(2, 3))\n")
add("i_extra_key_dict_value", "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), 'meta': {}}\n")
add("n_bad-descr__descr_dict_of_two_char_keys", d(descr="{'ab': 1}", shape="(2,)"))
add("n_bad-descr__dict_as_descr", d(descr="{'names': ['a'], 'formats': ['<f8']}"))

# ------------------------------------------------------------- NUL bytes --
add("n_header-encoding__nul_in_padding", d(end=" \x00\n"))
add("n_header-encoding__nul_in_string", d(descr="'<f8\x00'"))
add("n_header-encoding__nul_between_tokens", "{'descr':\x00'<f8', 'fortran_order': False, 'shape': (2, 3)}\n")
add("n_header-encoding__nul_first_byte", "\x00" + d())
add("n_header-encoding__nul_only", "\x00")
add("n_header-encoding__nul_in_name__v3", u8(d(descr="[('\u65e5\x00', '<f8')]", shape="(2,)")))
add("n_header-encoding__nul_padding__v2", d(end="\x00" * 8))

# ---------------------------------------------------------- duplicate keys --
add("n_duplicate-key__descr_twice", "{'descr': '<f8', 'descr': '<i4', 'fortran_order': False, 'shape': (2, 3)}\n")
add("n_duplicate-key__shape_twice", "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), 'shape': (6,)}\n")
add("n_duplicate-key__fortran_order_twice", "{'descr': '<f8', 'fortran_order': True, 'fortran_order': False, 'shape': (2, 3)}\n")
add("n_duplicate-key__descr_twice_other_quotes", "{'descr': '<f8', \"descr\": '<f8', 'fortran_order': False, 'shape': (2, 3)}\n")
add("n_duplicate-key__descr_twice_via_escape", "{'descr': '<f8', 'd\\x65scr': '<i4', 'fortran_order': False, 'shape': (2, 3)}\n")
add("n_duplicate-key__extra_key_twice", "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), 'x': 1, 'x': 2}\n")

# -------------------------------------------------------------- extra keys --
add("i_extra_key_int", "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), 'version': 2}\n")
add("i_extra_key_first", "{'author': 'me', 'descr': '<f8', 'fortran_order': False, 'shape': (2, 3)}\n")
add("i_extra_key_string_holding_shape_text", "{'descr': '<f8', 'fortran_order': False, 'x': \"'shape': (3,)\", 'shape': (2, 3)}\n")
add("i_extra_key_nested_31_deep", "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), 'x': " + "[" * 31 + "]" * 31 + "}\n")
add("i_extra_key_none_and_bools", "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), 'a': None, 'b': [True, False]}\n")
add("i_extra_key_utf8__v3", u8("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), '\u00fc': '\u65e5'}\n"))

# ------------------------------------------------------------ missing keys --
add("n_missing-key__empty_dict", "{}\n")
add("n_missing-key__no_descr", "{'fortran_order': False, 'shape': (2, 3)}\n")
add("n_missing-key__no_fortran_order", "{'descr': '<f8', 'shape': (2, 3)}\n")
add("n_missing-key__no_shape", "{'descr': '<f8', 'fortran_order': False}\n")
add("n_missing-key__key_case_differs", "{'Descr': '<f8', 'fortran_order': False, 'shape': (2, 3)}\n")

# --------------------------------------------------------- string syntax --
for p in ["u", "r", "b", "U", "R", "rb", "f"]:
    # b'<f8' parses since bytes titles do (a bytes literal), and is no type string.
    kind = "n_bad-descr" if p == "b" else "n_header-syntax"
    add(kind + "__string_prefix_" + p + ("_upper" if p.isupper() else ""), d(descr=p + "'<f8'"))
add("n_header-syntax__key_prefix_u", "{u'descr': '<f8', 'fortran_order': False, 'shape': (2, 3)}\n")
add("n_header-syntax__triple_single_quotes", d(descr="'''<f8'''"))
add("n_header-syntax__triple_double_quotes", d(descr='"""<f8"""'))
add("n_header-syntax__implicit_concatenation_value", d(descr="'<' 'f8'"))
add("n_header-syntax__implicit_concatenation_key", "{'des' 'cr': '<f8', 'fortran_order': False, 'shape': (2, 3)}\n")
add("n_header-syntax__parens_around_string", d(descr="('<f8')"))
add("n_header-syntax__parens_around_bool", d(fo="(False)"))
add("n_header-syntax__parens_around_dims", d(shape="((2), (3))"))
add("n_header-syntax__parens_around_dict", "(" + d(end="") + ")\n")
add("n_header-syntax__unterminated_string", "{'descr': '<f8, 'fortran_order': False, 'shape': (2, 3)}\n")
add("n_header-syntax__raw_newline_in_string", d(descr="[('a\nb', '<f8')]", shape="(2,)"))
add("n_header-syntax__raw_cr_in_string", d(descr="[('a\rb', '<f8')]", shape="(2,)"))
add("y_raw_tab_in_string", d(descr="[('a\tb', '<f8')]", shape="(2,)"))
add("y_raw_control_char_in_string", d(descr="[('a\x01b', '<f8')]", shape="(2,)"))
add("y_raw_del_in_string", d(descr="[('a\x7fb', '<f8')]", shape="(2,)"))
add("n_header-syntax__string_continuation_backslash_newline", d(descr="[('a\\\nb', '<f8')]", shape="(2,)"))

# --------------------------------------------------------------- escapes --
for esc, label in [("\\\\", "backslash"), ("\\'", "single_quote"), ('\\"', "double_quote"), ("\\n", "newline"),
                   ("\\r", "carriage_return"), ("\\t", "tab"), ("\\x41", "hex_x41"), ("\\xe9", "hex_xe9"),
                   ("\\x00", "hex_x00"), ("\\u00e9", "u_00e9"), ("\\u200b", "u_200b"), ("\\U0001f600", "U_0001f600")]:
    add("y_escape_in_field_name_" + label, d(descr="[('a%sb', '<f8')]" % esc, shape="(2,)"))
add("y_escape_all_in_double_quoted_name", d(descr='[("\\\\\\\'\\"\\n\\r\\t\\x7f\\u20ac\\U0010ffff", \'<f8\')]', shape="(2,)"))
add("y_escape_uppercase_hex_digits", d(descr="[('\\xE9\\u00C9\\U0001F600', '<f8')]", shape="(2,)"))
for esc, label in [("\\a", "bell"), ("\\b", "backspace"), ("\\f", "formfeed"), ("\\v", "vertical_tab"),
                   ("\\0", "nul_digit"), ("\\101", "octal"), ("\\N{LATIN SMALL LETTER A}", "named_unicode"),
                   ("\\z", "unknown_letter"),
                   ("\\U00110000", "above_max_code_point"), ("\\x4", "short_hex"), ("\\u12", "short_u"),
                   ("\\xg0", "bad_hex_digit")]:
    add("n_header-syntax__escape_" + label, d(descr="[('a%sz', '<f8')]" % esc, shape="(2,)"))
# A lone surrogate: np.save writes a field so named as its escape (DEVIATIONS.md a14), so a
# field name may hold one; a key, a type string or a title may not.
add("y_escape_lone_surrogate_u", d(descr="[('a\\ud800z', '<f8')]", shape="(2,)"))
add("y_escape_lone_surrogate_U", d(descr="[('a\\U0000dc00z', '<f8')]", shape="(2,)"))
add("y_escape_lone_surrogate_nested", d(descr="[('a', [('\\udc00', '<i2')])]", shape="(2,)"))
add("n_header-syntax__escape_lone_surrogate_in_key",
    "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), 'x\\ud800': 1, }\n")
add("n_bad-descr__escape_lone_surrogate_in_typestr", d(descr="'<f8\\ud800'"))
add("y_escape_lone_surrogate_in_title", d(descr="[(('t\\ud800', 'a'), '<f8')]", shape="(2,)"))

# ----------------------------------------------------------------- shape --
add("y_shape_empty", d(shape="()"))
add("y_shape_empty_with_space", d(shape="( )"))
add("y_shape_1d", d(shape="(3,)"))
add("y_shape_1d_space_before_comma", d(shape="(3 ,)"))
add("y_shape_2d_trailing_comma", d(shape="(2, 3,)"))
add("y_shape_2d_no_spaces", d(shape="(2,3)"))
add("y_shape_zero_dim", d(shape="(0,)"))
add("y_shape_zero_and_big_dims", d(shape="(0, 1000000000000)"))
add("y_shape_64_dims", d(shape="(" + ", ".join(["1"] * 64) + ")"))
add("y_shape_long_suffix", d(shape="(2L, 3L)"))
add("y_shape_long_suffix_zero", d(shape="(0L,)"))
add("y_shape_long_suffix__v2", d(shape="(2L, 3L)"))
add("y_shape_isize_max_bytes_u1", d(descr="'|u1'", shape="(9223372036854775807,)"))
add("y_shape_zero_times_isize_max_u1", d(descr="'|u1'", shape="(0, 9223372036854775807)"))
add("n_header-syntax__long_suffix__v3", d(shape="(2L, 3L)"))
add("n_header-syntax__long_suffix_lowercase", d(shape="(2l, 3l)"))
add("n_header-syntax__long_suffix_after_space", d(shape="(2 L, 3)"))
add("n_header-syntax__long_suffix_twice", d(shape="(2LL, 3)"))
add("n_header-syntax__long_suffix_on_string", d(descr="'<f8'L"))
add("n_header-syntax__leading_zero_dim", d(shape="(02, 3)"))
add("n_header-syntax__double_zero_dim", d(shape="(00, 3)"))
add("n_bad-value__negative_dim", d(shape="(-1, 3)"))
add("n_header-syntax__minus_zero_dim", d(shape="(-0, 3)"))
add("n_header-syntax__plus_sign_dim", d(shape="(+2, 3)"))
add("n_header-syntax__underscore_dim", d(shape="(1_0, 3)"))
add("n_header-syntax__hex_dim", d(shape="(0x2, 3)"))
add("n_header-syntax__octal_dim", d(shape="(0o3, 3)"))
add("n_header-syntax__binary_dim", d(shape="(0b10, 3)"))
add("n_bad-value__float_dim", d(shape="(2.0, 3)"))
add("n_header-syntax__exponent_dim", d(shape="(2e0, 3)"))
add("n_header-syntax__parenthesised_int_as_shape", d(shape="(6)"))
add("n_header-syntax__tuple_only_comma", d(shape="(,)"))
add("n_header-syntax__tuple_double_comma", d(shape="(2,, 3)"))
add("n_header-syntax__tuple_missing_comma", d(shape="(2 3)"))
add("n_header-syntax__arithmetic_dim", d(shape="(1+1, 3)"))
add("n_bad-value__shape_list", d(shape="[2, 3]"))
add("n_bad-value__shape_int", d(shape="6"))
add("n_bad-value__shape_string", d(shape="'(2, 3)'"))
add("n_bad-value__shape_none", d(shape="None"))
add("n_bad-value__dim_true", d(shape="(True, 3)"))
add("n_bad-value__dim_none", d(shape="(None, 3)"))
add("n_bad-value__dim_string", d(shape="('2', 3)"))
add("n_bad-value__dim_nested_tuple", d(shape="((2,), 3)"))
add("n_shape-overflow__65_dims", d(shape="(" + ", ".join(["1"] * 65) + ")"))
add("n_shape-overflow__dim_2pow64", d(shape="(18446744073709551616,)"))
add("n_shape-overflow__dim_2pow63", d(descr="'|u1'", shape="(9223372036854775808,)"))
add("n_shape-overflow__bytes_isize_max_plus_one", d(descr="'<u2'", shape="(4611686018427387904,)"))
add("n_shape-overflow__product_wraps_u64", d(shape="(4294967296, 4294967296)"))
add("n_shape-overflow__zero_dim_hides_overflow", d(shape="(0, 4611686018427387904, 4)"))
add("n_shape-overflow__huge_dim_with_long_suffix", d(shape="(99999999999999999999L,)"))

# -------------------------------------------------------- fortran_order --
add("y_fortran_order_true", d(fo="True"))
add("n_bad-value__fortran_order_int_0", d(fo="0"))
add("n_bad-value__fortran_order_int_1", d(fo="1"))
add("n_bad-value__fortran_order_string", d(fo="'False'"))
add("n_bad-value__fortran_order_none", d(fo="None"))
add("n_bad-value__fortran_order_tuple", d(fo="(False,)"))
add("n_header-syntax__fortran_order_lowercase_false", d(fo="false"))
add("n_header-syntax__fortran_order_lowercase_true", d(fo="true"))
add("n_header-syntax__fortran_order_upper", d(fo="FALSE"))

# ----------------------------------------------------------------- descr --
scalars = ["|b1", "<b1", ">b1", "=b1", "|i1", "<i1", ">i1", "|u1", "<u1", ">u1",
           "<i2", ">i2", "<i4", ">i4", "<i8", ">i8", "<u2", ">u2", "<u4", ">u4", "<u8", ">u8",
           "<f2", ">f2", "<f4", ">f4", "<f8", ">f8", "=f8", "<c8", ">c8", "<c16", ">c16",
           "|S5", "<S5", ">S5", "|S1", "<U5", ">U5", "=U5", "|V8", "<V8", "|V1"]
order_name = {"|": "pipe", "<": "lt", ">": "gt", "=": "eq"}
for s in scalars:
    add("y_descr_%s_%s" % (order_name[s[0]], s[1:]), d(descr="'%s'" % s))
units = ["Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as", "generic"]
for u in units:
    add("y_descr_M8_%s" % u, d(descr="'<M8[%s]'" % u))
add("y_descr_m8_all_units_record", d(descr="[" + ", ".join("('%s', '>m8[%s]')" % (u, u) for u in units) + "]", shape="(2,)"))
add("y_descr_M8_generic_bare", d(descr="'<M8'"))
add("y_descr_m8_bare_big_endian", d(descr="'>m8'"))
add("y_descr_M8_multiple_25s", d(descr="'<M8[25s]'"))
add("y_descr_m8_multiple_7D", d(descr="'>m8[7D]'"))
add("y_descr_M8_multiple_one", d(descr="'<M8[1ns]'"))
add("y_descr_M8_multiple_int_max", d(descr="'<M8[2147483647s]'"))
add("y_descr_S_large", d(descr="'|S2147483647'", shape="(0,)"))
add("y_descr_U_large", d(descr="'<U536870911'", shape="(0,)"))

add("n_bad-descr__pipe_f8", d(descr="'|f8'"))
add("n_bad-descr__pipe_i2", d(descr="'|i2'"))
add("n_bad-descr__pipe_c16", d(descr="'|c16'"))
add("n_bad-descr__pipe_U5", d(descr="'|U5'"))
add("n_bad-descr__pipe_M8", d(descr="'|M8[ns]'"))
add("n_bad-descr__no_byte_order", d(descr="'f8'"))
add("n_bad-descr__alias_float64", d(descr="'float64'"))
add("n_bad-descr__char_code_d", d(descr="'d'"))
add("n_bad-descr__char_code_with_order", d(descr="'<d'"))
add("n_bad-descr__kind_without_size", d(descr="'<i'"))
add("n_bad-descr__bool_char_code", d(descr="'?'"))
add("n_bad-descr__space_in_typestr", d(descr="'<f 8'"))
add("n_bad-descr__leading_zero_size", d(descr="'<f08'"))
add("n_bad-descr__odd_size", d(descr="'<f3'"))
add("n_bad-descr__commastring_one", d(descr="'<f8,'"))
add("n_bad-descr__commastring_two", d(descr="'<f8,<i4'"))
add("n_bad-descr__top_level_subarray_tuple", d(descr="('<f8', (3,))"))
add("n_bad-descr__top_level_subarray_string", d(descr="'(3,)<f8'"))
add("y_zero_size_S0", d(descr="'|S0'"))
add("n_bad-descr__S_without_size", d(descr="'|S'"))
add("y_zero_size_U0", d(descr="'<U0'"))
add("y_zero_size_V0", d(descr="'|V0'"))
add("n_bad-descr__S_leading_zero", d(descr="'|S05'"))
add("n_bad-descr__M8_ns_over_2", d(descr="'<M8[ns/2]'"))
add("n_bad-descr__M8_greek_mu__v3", u8(d(descr="'<M8[\u03bcs]'")))
add("n_bad-descr__M8_micro_sign_latin1", d(descr="'<M8[\xb5s]'"))
add("n_bad-descr__M8_multiple_zero", d(descr="'<M8[0s]'"))
add("n_bad-descr__M8_generic_with_multiple", d(descr="'<M8[25generic]'"))
add("n_bad-descr__M8_unknown_unit", d(descr="'<M8[xs]'"))
add("n_bad-descr__M8_empty_brackets", d(descr="'<M8[]'"))
add("n_bad-descr__M8_negative_multiple", d(descr="'<M8[-1s]'"))
add("n_bad-descr__M4", d(descr="'<M4[s]'"))
add("n_bad-descr__int_descr", d(descr="8"))
add("n_bad-descr__none_descr", d(descr="None"))
add("n_bad-descr__empty_string", d(descr="''"))
add("n_unsupported-dtype__object", d(descr="'|O'"))
add("n_unsupported-dtype__object_O8", d(descr="'|O8'"))
add("n_unsupported-dtype__object_in_record", d(descr="[('a', '<f8'), ('b', '|O')]", shape="(2,)"))
add("y_long_double_f16", d(descr="'<f16'"))
add("y_long_double_f16_big_endian", d(descr="'>f16'"))
add("y_long_double_c32", d(descr="'<c32'"))
add("y_long_double_in_record", d(descr="[('a', '<f16'), ('b', '>c32', (2,))]", shape="(2,)"))
add("n_unsupported-dtype__long_double_f12", d(descr="'<f12'"))
add("n_unsupported-dtype__long_double_c24", d(descr="'<c24'"))
add("n_bad-descr__long_double_pipe", d(descr="'|f16'"))
add("n_shape-overflow__descr_S_over_int_max", d(descr="'|S2147483648'", shape="(0,)"))
add("n_shape-overflow__descr_V_over_int_max", d(descr="'|V2147483648'", shape="(0,)"))
add("n_shape-overflow__descr_U_itemsize_over_int_max", d(descr="'<U536870912'", shape="(0,)"))
add("n_bad-descr__M8_multiple_over_int_max", d(descr="'<M8[2147483648s]'"))
add("n_bad-descr__M8_multiple_u32_max", d(descr="'<M8[4294967295s]'"))

# --------------------------------------------------------------- records --
R = lambda fields, shape="(2,)": d(descr="[" + fields + "]", shape=shape)
add("y_record_simple", R("('a', '<f8'), ('b', '<i4')"))
add("y_record_trailing_comma", R("('a', '<f8'), ('b', '<i4'),"))
add("y_record_big_endian_mixed", R("('a', '>f8'), ('b', '<i4'), ('c', '|u1'), ('d', '>U3'), ('e', '|S2')"))
add("y_record_title", R("(('Temperature in K', 'temp'), '<f4'), ('p', '<f4')"))
add("y_record_empty_title", R("(('', 'a'), '<f8')"))
add("y_record_padding_middle_and_end", R("('a', '<f8'), ('', '|V4'), ('b', '<i2'), ('', '|V2')"))
add("y_record_padding_first", R("('', '|V8'), ('a', '<f8')"))
add("y_record_consecutive_padding", R("('', '|V8'), ('', '|V8'), ('a', '<f8')"))
add("y_record_nested", R("('pos', [('x', '<f8'), ('y', '<f8')]), ('id', '<i8')"))
add("y_record_nested_with_padding", R("('pos', [('x', '<f4'), ('', '|V4')]), ('id', '<i8')"))
add("y_record_subarray", R("('m', '<f8', (2, 3)), ('v', '<i4', (4,))"))
add("y_record_subarray_one", R("('v', '<f8', (1,))"))
add("y_record_subarray_empty_shape_is_scalar", R("('v', '<f8', ())"))
add("y_record_subarray_zero", R("('v', '<f8', (0,)), ('w', '<i4')"))
add("y_record_subarray_trailing_comma_no_space", R("('v', '<f8', (2,3,))"))
add("y_record_subarray_of_records", R("('pts', [('x', '<f4'), ('y', '<f4')], (3,))"))
add("y_record_subarray_32_dims", R("('a', '|u1', (" + ", ".join(["1"] * 32) + "))"))
add("y_record_all_scalar_kinds", R(", ".join("('f%d', '%s')" % (i, s) for i, s in enumerate(scalars + ["<M8[ns]", ">m8[25s]"]) if s[0] != "=")))
add("y_record_double_quoted_names", R('("a", "<f8"), ("b\'c", "<f8")'))
add("y_record_latin1_name", R("('\xe9t\xe9', '<f8')"))
add("y_record_latin1_c1_byte_in_name", R("('a\x85\x9f', '<f8')"))
add("y_record_utf8_bytes_read_as_latin1", R("('\xc3\xa9', '<f8')"))
add("y_record_latin1_name__v2", R("('\xe9', '<f8')"))
add("y_record_utf8_name__v3", u8(R("('\u00e9t\u00e9', '<f8'), ('\u65e5\u672c', '<i4')")))
add("y_record_utf8_4byte_name__v3", u8(R("('\U0001f600', '<f8')")))
add("y_record_utf8_odd_chars_in_name__v3", u8(R("('\u2028\ufeff\uffff\x85\u00a0', '<f8')")))
add("y_record_name_with_hash_and_braces", R("('# not a comment }', '<f8'), ('{x}', '<f8')"))
add("y_record_name_looks_like_key", R("('descr', '<f8'), ('shape', '<i4')"))
add("y_record_long_suffix_in_subarray", R("('a', '<f8', (2L, 3L))", shape="(2L,)"))
nest = "'<f8'"
for i in range(15):
    nest = "[('f%d', %s)]" % (i, nest)
add("y_record_nested_15_deep", d(descr=nest, shape="(2,)"))
nest16 = "[('f15', %s)]" % nest
add("n_nesting-too-deep__record_nested_16_deep", d(descr=nest16, shape="(2,)"))

add("n_duplicate-field__same_name", R("('a', '<f8'), ('a', '<i4')"))
add("n_duplicate-field__title_equals_own_name", R("(('a', 'a'), '<f8')"))
add("n_duplicate-field__name_equals_earlier_title", R("(('t', 'a'), '<f8'), ('t', '<i4')"))
add("n_duplicate-field__title_equals_earlier_name", R("('a', '<f8'), (('a', 'b'), '<i4')"))
add("n_duplicate-field__same_title_twice", R("(('t', 'a'), '<f8'), (('t', 'b'), '<i4')"))
add("n_duplicate-field__nested_same_name", R("('a', [('x', '<f8'), ('x', '<f8')])"))
add("y_record_empty", d(descr="[]"))
add("y_record_only_padding", R("('', '|V8')"))
add("y_record_nested_only_padding", R("('a', [('', '|V8')])"))
add("y_record_padding_V0", R("('a', '<f8'), ('', '|V0')"))
add("y_record_padding_with_shape", R("('', '|V4', (2,)), ('a', '<f8')"))
add("y_record_field_named_empty", R("('', '<f8'), ('a', '<f8')"))
add("y_record_empty_name_with_title", R("(('t', ''), '|V4'), ('a', '<f8')"))
add("n_bad-descr__field_as_list", R("['a', '<f8']"))
add("n_bad-descr__field_as_string", R("'ab'"))
add("n_bad-descr__field_one_item", R("('a',)"))
add("n_bad-descr__field_four_items", R("('a', '<f8', (2,), 1)"))
add("n_bad-descr__field_name_int", R("(1, '<f8')"))
add("n_bad-descr__field_name_bytes", R("(b'a', '<f8')"))
add("y_title_int", R("((1, 'a'), '<f8')"))
add("y_title_none", R("((None, 'a'), '<f8')"))
add("y_title_bytes", R("((b't', 'a'), '<f8')"))
add("y_title_set", R("(({1}, 'a'), '<f8')"))
add("y_title_dict", R("(({1: 2}, 'a'), '<f8')"))
add("n_header-syntax__title_set_of_list", R("(({[1]}, 'a'), '<f8')"))
add("n_header-syntax__title_dict_key_tuple_of_list", R("(({(1, [2]): 2}, 'a'), '<f8')"))
# Number and bytes spellings np.save never writes in a title (DEVIATIONS a4, a8, a13).
for name, title in (("float_exponent_without_sign", "1e5"), ("float_capital_e", "1E+5"),
                    ("float_trailing_dot", "1."), ("float_leading_dot", ".5"),
                    ("imaginary_capital_j", "1J"), ("complex_spaces_inside", "(1 + 2j)"),
                    ("complex_sum_unparenthesized", "1+2j"), ("float_leading_zeros", "01.5"),
                    ("bytes_capital_b_prefix", "B't'"), ("bytes_unknown_escape", "b'\\a'"),
                    ("float_overflow", "1e+400")):
    add("n_header-syntax__title_" + name, R("((" + title + ", 'a'), '<f8')"))
add("n_bad-descr__title_one_item", R("(('t',), '<f8')"))
add("n_bad-descr__subarray_shape_bare_int", R("('a', '<f8', 3)"))
add("n_bad-descr__subarray_shape_list", R("('a', '<f8', [3])"))
add("n_bad-descr__subarray_shape_none", R("('a', '<f8', None)"))
add("n_bad-descr__subarray_dim_true", R("('a', '<f8', (True,))"))
add("n_bad-descr__field_type_subarray_tuple", R("('a', ('<f8', (2,)))"))
add("n_bad-descr__field_type_subarray_string", R("('a', '(2,)<f8')"))
add("y_record_field_S0", R("('a', '|S0')"))
add("n_bad-descr__field_type_pipe_f8", R("('a', '|f8')"))
add("n_bad-descr__subarray_negative_dim", R("('a', '<f8', (-1,))"))
add("y_record_subarray_33_dims", R("('a', '|u1', (" + ", ".join(["1"] * 33) + "))"))
add("y_record_subarray_64_dims", R("('a', '|u1', (" + ", ".join(["1"] * 64) + "))"))
add("n_shape-overflow__subarray_65_dims", R("('a', '|u1', (" + ", ".join(["1"] * 65) + "))"))
add("n_shape-overflow__record_size_overflows", R("('a', '|u1', (4294967296, 4294967296))"))
add("n_shape-overflow__record_itemsize_over_int_max", R("('a', '|S2147483647'), ('b', '|S2')", shape="(0,)"))
add("n_shape-overflow__record_subarray_bytes_over_int_max", R("('a', '<f8', (268435456,))", shape="(0,)"))
add("n_shape-overflow__record_subarray_dim_over_int_max", R("('a', '|u1', (2147483648,))", shape="(0,)"))

# --------------------------------------------------------------- nesting --
add("n_nesting-too-deep__lists_40", d(descr="[" * 40 + "]" * 40))
add("n_nesting-too-deep__tuples_40_in_shape", d(shape="(" * 40 + ")" * 40))
add("n_nesting-too-deep__mixed_40", d(descr="[(" * 20 + ")]" * 20))
add("n_nesting-too-deep__lists_32", d(descr="[" * 32 + "]" * 32))
add("n_nesting-too-deep__extra_key_lists_32", "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), 'x': " + "[" * 32 + "]" * 32 + "}\n")
add("n_bad-descr__lists_31_deep_parse_ok", d(descr="[" * 31 + "]" * 31))
add("n_nesting-too-deep__unclosed_10000", d(descr="[" * 10000))

# --------------------------------------------------------------- encoding --
add("n_header-encoding__invalid_utf8__v3", R("('a\xffb', '<f8')").encode("latin-1"))
add("n_header-encoding__latin1_name__v3", R("('\xe9', '<f8')").encode("latin-1"))
add("n_header-encoding__overlong_utf8__v3", b"{'descr': [('\xc0\xaf', '<f8')], 'fortran_order': False, 'shape': (2,)}\n")
add("n_header-encoding__utf8_surrogate__v3", b"{'descr': [('\xed\xa0\x80', '<f8')], 'fortran_order': False, 'shape': (2,)}\n")
add("n_header-encoding__above_max_code_point__v3", b"{'descr': [('\xf4\x90\x80\x80', '<f8')], 'fortran_order': False, 'shape': (2,)}\n")
add("n_header-encoding__lone_continuation_byte__v3", b"{'descr': [('\x80', '<f8')], 'fortran_order': False, 'shape': (2,)}\n")
add("n_header-encoding__truncated_sequence_at_end__v3", u8(d()) + b"\xe6\x97")
add("n_header-encoding__invalid_utf8_in_padding__v3", d(end="   \xff\n").encode("latin-1"))
add("y_utf8_padding_spaces__v3", u8(pad(d(end=""), 64, version=3).decode()))

# --------------------------------------------------------- header length --
def sized(total, name_char="a", v3=False):
    base = "{'descr': [('%s', '<f8')], 'fortran_order': False, 'shape': (2,), }"
    text = base % ""
    fill = total - len(text) - 1
    return (base % (name_char * fill)) + "\n"


h = sized(10000)
assert len(h) == 10000
add("y_header_exactly_10000_chars", h)
add("i_header_10001_chars", sized(10001))
h = sized(10000, "\u65e5")
assert len(h) == 10000 and len(u8(h)) > 20000
add("y_header_10000_chars_multibyte__v3", u8(h))
add("i_header_10001_chars_multibyte__v3", u8(sized(10001, "\u65e5")))
add("i_header_60000_bytes__v2", pad(d(end=""), 64, version=2) + b" " * 60000)

# Forms issue 32 added (NumPy writes them, or their neighbours it refuses).
add('n_bad-descr__nested_subarray_of_size_zero', "{'descr': [('c', ('<f8', (0,)), (2,))], 'fortran_order': False, 'shape': (2,), }\n")
add('n_bad-descr__subarray_of_S0', "{'descr': [('c', '|S0', (2,))], 'fortran_order': False, 'shape': (2,), }\n")
add('n_shape-overflow__zero_size_count_past_int64', "{'descr': '|S0', 'fortran_order': False, 'shape': (2, 4611686018427387904), }\n")
add('y_record_field_named_empty_first', "{'descr': [('', '<i4'), ('a', '<f8')], 'fortran_order': False, 'shape': (2,), }\n")
add('y_record_nested_subarray', "{'descr': [('c', ('<f8', (5,)), (2,))], 'fortran_order': False, 'shape': (2,), }\n")
add('y_record_nested_subarray_depth3', "{'descr': [('c', (('<i2', (2,)), (3,)), (4,)), ('d', '>f4')], 'fortran_order': False, 'shape': (3,), }\n")
add('y_record_nested_subarray_empty_inner_shape', "{'descr': [('c', ('<f8', ()), (2,))], 'fortran_order': False, 'shape': (2,), }\n")
add('y_record_nested_subarray_of_record', "{'descr': [('c', ([('x', '<f4'), ('y', ('<u2', (2,)), (3,))], (2,)), (2,))], 'fortran_order': False, 'shape': (1,), }\n")
add('y_record_padding_subarray_of_f8', "{'descr': [('', '<f8', (2,)), ('a', '<f8')], 'fortran_order': False, 'shape': (2,), }\n")
add('y_record_subarray_of_empty_record', "{'descr': [('c', [], (2,))], 'fortran_order': False, 'shape': (2,), }\n")
add('y_zero_size_zero_dim_others_past_int64', "{'descr': '|V0', 'fortran_order': False, 'shape': (5, 0, 4611686018427387904, 10), }\n")

os.makedirs(OUT, exist_ok=True)
for f in os.listdir(OUT):
    if f.endswith(".txt"):
        os.remove(os.path.join(OUT, f))
for name, data in sorted(cases.items()):
    with open(os.path.join(OUT, name), "wb") as fh:
        fh.write(data)
from collections import Counter
print(len(cases), Counter(n[:2] for n in cases))
