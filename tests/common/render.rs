//! A test-side `.npy` header renderer, shared by test files
//! (`#[path = "common/render.rs"] mod render;`).
//!
//! It renders a header (dtype, fortran_order, shape and optional extra keys)
//! as complete header text for a given format version (dict, growth spaces,
//! padding, final newline) in the canonical form `np.save` writes
//! ([`Style::numpy`], checked against `npyguard::write::header_bytes` by
//! tests/roundtrip.rs) and in the forms other writers produce, chosen by a
//! [`Style`]: key order, quotes, escapes, whitespace between tokens, trailing
//! commas, `L` suffixes (1.0/2.0 only), alternative type-string spellings,
//! growth spaces, 16- or 64-byte alignment, padding characters and the
//! final newline.
//!
//! Everything here is written independently of the library's own renderer
//! (`Dtype::descr`, `Header::to_dict_text`, `repr::write_py_str`); only
//! Python's `str.isprintable` table is borrowed (`npyguard::repr::is_printable`).
#![allow(dead_code)]

use npyguard::literal::{Int, Literal, Value};
use npyguard::repr::is_printable;
use npyguard::{DateUnit, Dtype, Endian, Preamble, Record, TimeUnit, Version};

/// The contents of a header.
#[derive(Debug, Clone, PartialEq)]
pub struct HeaderSpec {
    /// Element type (rendered as the `descr` value).
    pub dtype: Dtype,
    /// The `fortran_order` value.
    pub fortran_order: bool,
    /// The `shape` value.
    pub shape: Vec<usize>,
    /// Keys other than descr/fortran_order/shape (distinct, none of those three).
    pub extra: Vec<(String, Literal)>,
}

/// How strings are quoted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quotes {
    /// As Python's `repr`: `'` unless the string holds `'` and no `"`.
    Repr,
    /// Always `'` (inner `'` escaped).
    Single,
    /// Always `"` (inner `"` escaped).
    Double,
    /// Chosen per string from the tape.
    Mixed,
}

/// How characters inside strings are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Escapes {
    /// As Python's `repr` (in versions 1.0/2.0 characters above U+00FF are
    /// escaped too, since latin-1 cannot hold them).
    Repr,
    /// Per character from the tape: raw where allowed, or any escape that names it
    /// (`\n`-style, `\xHH`, `\uHHHH`, `\UHHHHHHHH`, hex digits in either case).
    Mixed,
}

/// Whitespace between tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ws {
    /// As `repr` and `np.save`: `, ` and `: `, and `, }` closing the dict.
    Repr,
    /// As npyz: `repr` plus a space after every trailing comma (`(2, 3, )`, `[('a', '<f8'), ]`).
    Npyz,
    /// As pprint (NumPy 1.1) when it wraps: dict entries on lines of their own (`,\n `).
    Pprint,
    /// No whitespace at all.
    None,
    /// Any mix of space, `\t`, `\n`, `\r`, `\x0c` (including none) in every gap, from the tape.
    Mixed,
}

/// Trailing commas in tuples or lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Comma {
    /// As `repr`: only one-element tuples carry one.
    Repr,
    /// Every container with at least one element carries one.
    Always,
    /// Per container from the tape (one-element tuples always carry one).
    Mixed,
}

/// The Python 2 `L` suffix on integers (never written in version 3.0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Long {
    /// No suffix.
    Never,
    /// Every integer.
    All,
    /// Per integer from the tape.
    Mixed,
}

/// What follows the dict (and growth spaces).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pad {
    /// NumPy: `align - (used + 1) % align` padding characters (1 to `align`), then `\n`.
    Numpy,
    /// cnpy: the fewest padding characters (0 to `align - 1`), then `\n`.
    Minimal,
    /// NPZ.jl: nothing at all when the dict already ends aligned, else as [`Pad::Minimal`].
    NoNewlineWhenAligned,
    /// Nothing (the payload starts right after the dict; unaligned).
    Bare,
}

/// Characters used for padding before the final newline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PadChars {
    /// Spaces (every known writer).
    Spaces,
    /// Any of space, `\t`, `\n`, `\r`, `\x0c`, from the tape.
    Mixed,
}

/// How to render a header. [`Style::numpy`] is exactly `np.save`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Style {
    /// Key order: entries (in sorted-key order) are stably sorted by their rank here
    /// (missing ranks count as their index), so any permutation can be expressed;
    /// empty means sorted keys, as `np.save` writes them.
    pub key_rank: Vec<u8>,
    /// Quote choice.
    pub quotes: Quotes,
    /// Character escapes inside strings.
    pub escapes: Escapes,
    /// Whitespace between tokens.
    pub ws: Ws,
    /// A comma after the last dict entry (`np.save` writes one).
    pub dict_comma: bool,
    /// Trailing comma in the `shape` tuple.
    pub shape_comma: Comma,
    /// Trailing comma in other tuples (record fields, subarray shapes, extra values).
    pub tuple_comma: Comma,
    /// Trailing comma in lists.
    pub list_comma: Comma,
    /// `L` suffixes (versions 1.0/2.0 only).
    pub long_suffix: Long,
    /// Alternative spellings of the same dtype: `<`/`>`/`=` on one-byte, S and V
    /// types, `=` for host order, `[1s]` for `[s]`, `[generic]`, split padding
    /// fields, `()` as the shape of a scalar field.
    pub typestr_variants: bool,
    /// NumPy ≥ 1.24's growth spaces after the dict.
    pub growth: bool,
    /// Alignment of the payload offset (64 for NumPy ≥ 1.14, 16 before and for cnpy/NPZ.jl).
    pub align: usize,
    /// Padding rule.
    pub pad: Pad,
    /// Padding characters.
    pub pad_chars: PadChars,
    /// Choices for the `Mixed` settings, read cyclically (all zero when empty).
    pub tape: Vec<u8>,
}

impl Style {
    /// Exactly what `np.save` (NumPy ≥ 1.24) writes.
    pub fn numpy() -> Style {
        Style {
            key_rank: Vec::new(),
            quotes: Quotes::Repr,
            escapes: Escapes::Repr,
            ws: Ws::Repr,
            dict_comma: true,
            shape_comma: Comma::Repr,
            tuple_comma: Comma::Repr,
            list_comma: Comma::Repr,
            long_suffix: Long::Never,
            typestr_variants: false,
            growth: true,
            align: 64,
            pad: Pad::Numpy,
            pad_chars: PadChars::Spaces,
            tape: Vec::new(),
        }
    }

    /// NumPy 1.14–1.23: no growth spaces.
    pub fn numpy_1_14() -> Style {
        Style {
            growth: false,
            ..Style::numpy()
        }
    }

    /// NumPy < 1.14 and libnpy: 16-byte alignment, no growth spaces.
    pub fn numpy_old() -> Style {
        Style {
            growth: false,
            align: 16,
            ..Style::numpy()
        }
    }

    /// cnpy: 16-byte alignment with the fewest padding spaces (possibly none).
    pub fn cnpy() -> Style {
        Style {
            pad: Pad::Minimal,
            ..Style::numpy_old()
        }
    }

    /// NPZ.jl: 16-byte alignment, no newline when the dict already ends aligned.
    pub fn npz_jl() -> Style {
        Style {
            pad: Pad::NoNewlineWhenAligned,
            ..Style::numpy_old()
        }
    }

    /// npyz: `(2, 3, )`, `[('a', '<f8'), ]`, 64-byte alignment.
    pub fn npyz() -> Style {
        Style {
            ws: Ws::Npyz,
            shape_comma: Comma::Always,
            list_comma: Comma::Always,
            growth: false,
            ..Style::numpy()
        }
    }

    /// ndarray-npy: no trailing comma after the last entry, 64-byte alignment.
    pub fn ndarray_npy() -> Style {
        Style {
            dict_comma: false,
            growth: false,
            ..Style::numpy()
        }
    }

    /// NumPy 1.1 (pprint): no trailing comma, entries wrapped onto lines, 16-byte alignment.
    pub fn pprint() -> Style {
        Style {
            ws: Ws::Pprint,
            dict_comma: false,
            ..Style::numpy_old()
        }
    }

    /// Python 2 on win64: `L` suffixes on every integer.
    pub fn python2() -> Style {
        Style {
            long_suffix: Long::All,
            ..Style::numpy_old()
        }
    }

    /// The named writer styles above.
    pub fn presets() -> Vec<(&'static str, Style)> {
        vec![
            ("numpy", Style::numpy()),
            ("numpy-1.14", Style::numpy_1_14()),
            ("numpy-old", Style::numpy_old()),
            ("cnpy", Style::cnpy()),
            ("npz-jl", Style::npz_jl()),
            ("npyz", Style::npyz()),
            ("ndarray-npy", Style::ndarray_npy()),
            ("pprint", Style::pprint()),
            ("python2", Style::python2()),
        ]
    }

    /// Whether the style pads to [`Style::align`] (every [`Pad`] but [`Pad::Bare`]).
    pub fn aligns(&self) -> bool {
        self.pad != Pad::Bare
    }
}

/// A rendered header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    /// The format version it was rendered for.
    pub version: Version,
    /// The header text (HEADER_LEN bytes): dict, growth spaces, padding and newline,
    /// encoded as latin-1 (1.0/2.0) or UTF-8 (3.0).
    pub text: Vec<u8>,
    /// The keys in file order.
    pub keys: Vec<String>,
    /// Whether some integer carries the `L` suffix.
    pub long_suffix: bool,
    /// Deepest nesting of dict/tuple/list (the header dict is 1).
    pub nesting: u32,
}

impl Rendered {
    /// The preamble of a file holding this header.
    pub fn preamble(&self) -> Preamble {
        Preamble {
            version: self.version,
            header_len: u32::try_from(self.text.len()).expect("length checked when rendering"),
        }
    }

    /// Magic, version, header length and header text: everything before the payload.
    pub fn head(&self) -> Vec<u8> {
        let mut out = b"\x93NUMPY".to_vec();
        out.extend_from_slice(&self.version.bytes());
        let len = self.text.len();
        match self.version {
            Version::V1_0 => out.extend_from_slice(&(len as u16).to_le_bytes()),
            _ => out.extend_from_slice(&(len as u32).to_le_bytes()),
        }
        out.extend_from_slice(&self.text);
        out
    }

    /// The header text decoded as its version says (latin-1 or UTF-8).
    pub fn text_str(&self) -> String {
        match self.version {
            Version::V3_0 => String::from_utf8(self.text.clone()).expect("rendered UTF-8"),
            _ => self.text.iter().map(|&b| char::from(b)).collect(),
        }
    }
}

/// Renders `spec` as the complete header text of a version-`version` file in `style`.
///
/// Fails only when the text does not fit the version's length field (1.0: 65535 bytes).
pub fn render(spec: &HeaderSpec, style: &Style, version: Version) -> Result<Rendered, String> {
    let mut r = Renderer {
        style,
        version,
        tape: Tape {
            bytes: &style.tape,
            pos: 0,
        },
        out: String::new(),
        long: false,
        depth: 0,
        max_depth: 0,
    };
    let mut entries: Vec<(String, Node)> = vec![
        ("descr".to_string(), r.descr(&spec.dtype)),
        ("fortran_order".to_string(), Node::Bool(spec.fortran_order)),
        (
            "shape".to_string(),
            Node::Tuple(
                spec.shape
                    .iter()
                    .map(|&d| Node::Int(Int::Small(d as u64)))
                    .collect(),
                TupleKind::Shape,
            ),
        ),
    ];
    entries.extend(
        spec.extra
            .iter()
            .map(|(k, v)| (k.clone(), Node::from_literal(v))),
    );
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    let mut ranked: Vec<(u32, (String, Node))> = entries
        .into_iter()
        .enumerate()
        .map(|(i, e)| {
            let rank = style.key_rank.get(i).map_or(i as u32, |&r| u32::from(r));
            (rank, e)
        })
        .collect();
    ranked.sort_by_key(|(rank, _)| *rank);
    let entries: Vec<(String, Node)> = ranked.into_iter().map(|(_, e)| e).collect();

    r.dict(&entries);
    if style.growth {
        let dim = if spec.fortran_order {
            spec.shape.last()
        } else {
            spec.shape.first()
        };
        if let Some(d) = dim {
            let n = 21usize.saturating_sub(d.to_string().len());
            r.out.extend(std::iter::repeat_n(' ', n));
        }
    }
    let mut text = r.encode();
    let preamble_len = 8 + version.len_field_size();
    let used = preamble_len + text.len();
    let a = style.align.max(1);
    let pad = match style.pad {
        Pad::Numpy => Some(a - (used + 1) % a),
        Pad::Minimal => Some((a - (used + 1) % a) % a),
        Pad::NoNewlineWhenAligned if used % a == 0 => None,
        Pad::NoNewlineWhenAligned => Some((a - (used + 1) % a) % a),
        Pad::Bare => None,
    };
    if let Some(n) = pad {
        for _ in 0..n {
            let c = match style.pad_chars {
                PadChars::Spaces => b' ',
                PadChars::Mixed => WSP[usize::from(r.tape.next()) % WSP.len()],
            };
            text.push(c);
        }
        text.push(b'\n');
    }
    let limit = match version {
        Version::V1_0 => u64::from(u16::MAX),
        _ => u64::from(u32::MAX),
    };
    if text.len() as u64 > limit {
        return Err(format!(
            "a header of {} bytes does not fit version {version}",
            text.len()
        ));
    }
    Ok(Rendered {
        version,
        text,
        keys: entries.into_iter().map(|(k, _)| k).collect(),
        long_suffix: r.long,
        nesting: r.max_depth,
    })
}

/// The canonical type string of a non-record dtype (`'<f8'`, `'|S5'`, `'<M8[25s]'`).
pub fn canonical_typestr(d: &Dtype) -> String {
    let (order, code) = typestr_parts(d);
    format!("{}{code}", order.unwrap_or('|'))
}

/// Python's whitespace between tokens.
const WSP: [u8; 5] = [b' ', b'\t', b'\n', b'\r', 0x0c];

/// The header's values as a tree to render.
#[derive(Debug, Clone)]
enum Node {
    Str(String),
    /// A value written as its canonical repr (a title that is not a string).
    Repr(String),
    Int(Int),
    Bool(bool),
    None,
    Tuple(Vec<Node>, TupleKind),
    List(Vec<Node>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TupleKind {
    Shape,
    Other,
}

impl Node {
    fn from_literal(lit: &Literal) -> Node {
        match &lit.value {
            Value::Str(s) => Node::Str(s.clone()),
            Value::Int(i) => Node::Int(i.clone()),
            Value::Bool(b) => Node::Bool(*b),
            Value::None => Node::None,
            Value::Tuple(items) => Node::Tuple(
                items.iter().map(Node::from_literal).collect(),
                TupleKind::Other,
            ),
            Value::List(items) => Node::List(items.iter().map(Node::from_literal).collect()),
            // Numbers, bytes and strings holding lone surrogates: their one spelling.
            _ => Node::Repr(lit.to_string()),
        }
    }
}

/// The style's choices, read cyclically.
struct Tape<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Tape<'_> {
    fn next(&mut self) -> u8 {
        if self.bytes.is_empty() {
            return 0;
        }
        let b = self.bytes[self.pos % self.bytes.len()];
        let round = (self.pos / self.bytes.len()) as u8;
        self.pos += 1;
        b.wrapping_add(round.wrapping_mul(97))
    }
    fn below(&mut self, n: usize) -> usize {
        usize::from(self.next()) % n
    }
    fn coin(&mut self) -> bool {
        self.next() & 1 == 1
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cont {
    Dict,
    Tuple,
    List,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Gap {
    AfterOpen,
    BeforeComma,
    AfterComma,
    BeforeColon,
    AfterColon,
    AfterTrailingComma,
    BeforeClose,
}

struct Renderer<'a> {
    style: &'a Style,
    version: Version,
    tape: Tape<'a>,
    out: String,
    long: bool,
    depth: u32,
    max_depth: u32,
}

impl Renderer<'_> {
    fn latin1(&self) -> bool {
        self.version != Version::V3_0
    }

    fn encode(&self) -> Vec<u8> {
        if self.latin1() {
            self.out
                .chars()
                .map(|c| u8::try_from(u32::from(c)).expect("latin-1 text"))
                .collect()
        } else {
            self.out.as_bytes().to_vec()
        }
    }

    fn gap(&mut self, cont: Cont, gap: Gap) {
        let fixed = match (self.style.ws, cont, gap) {
            (Ws::Mixed, _, _) => None,
            (Ws::None, _, _) => Some(""),
            (Ws::Pprint, Cont::Dict, Gap::AfterComma) => Some("\n "),
            (_, _, Gap::AfterComma | Gap::AfterColon) => Some(" "),
            (Ws::Npyz, _, Gap::AfterTrailingComma) => Some(" "),
            (_, Cont::Dict, Gap::AfterTrailingComma) => Some(" "),
            _ => Some(""),
        };
        match fixed {
            Some(s) => self.out.push_str(s),
            None => {
                let n = match self.tape.below(8) {
                    0..=3 => 0,
                    k => k - 3,
                };
                for _ in 0..n {
                    let c = WSP[self.tape.below(WSP.len())];
                    self.out.push(char::from(c));
                }
            }
        }
    }

    fn open(&mut self, c: char) {
        self.out.push(c);
        self.depth += 1;
        self.max_depth = self.max_depth.max(self.depth);
    }

    fn close(&mut self, c: char) {
        self.out.push(c);
        self.depth -= 1;
    }

    fn dict(&mut self, entries: &[(String, Node)]) {
        self.open('{');
        self.gap(Cont::Dict, Gap::AfterOpen);
        for (i, (k, v)) in entries.iter().enumerate() {
            if i > 0 {
                self.gap(Cont::Dict, Gap::BeforeComma);
                self.out.push(',');
                self.gap(Cont::Dict, Gap::AfterComma);
            }
            self.string(k);
            self.gap(Cont::Dict, Gap::BeforeColon);
            self.out.push(':');
            self.gap(Cont::Dict, Gap::AfterColon);
            self.node(v);
        }
        if !entries.is_empty() && self.style.dict_comma {
            self.gap(Cont::Dict, Gap::BeforeComma);
            self.out.push(',');
            self.gap(Cont::Dict, Gap::AfterTrailingComma);
        } else {
            self.gap(Cont::Dict, Gap::BeforeClose);
        }
        self.close('}');
    }

    fn seq(&mut self, cont: Cont, items: &[Node], trailing: bool) {
        let (o, c) = match cont {
            Cont::Tuple => ('(', ')'),
            _ => ('[', ']'),
        };
        self.open(o);
        self.gap(cont, Gap::AfterOpen);
        for (i, v) in items.iter().enumerate() {
            if i > 0 {
                self.gap(cont, Gap::BeforeComma);
                self.out.push(',');
                self.gap(cont, Gap::AfterComma);
            }
            self.node(v);
        }
        if !items.is_empty() && trailing {
            self.gap(cont, Gap::BeforeComma);
            self.out.push(',');
            self.gap(cont, Gap::AfterTrailingComma);
        } else if !items.is_empty() {
            self.gap(cont, Gap::BeforeClose);
        }
        self.close(c);
    }

    fn comma(&mut self, rule: Comma, len: usize, one_needs: bool) -> bool {
        if len == 0 {
            return false;
        }
        if len == 1 && one_needs {
            return true;
        }
        match rule {
            Comma::Repr => false,
            Comma::Always => true,
            Comma::Mixed => self.tape.coin(),
        }
    }

    fn node(&mut self, n: &Node) {
        match n {
            Node::Str(s) => self.string(s),
            Node::Repr(s) => self.out.push_str(s),
            Node::Int(i) => self.int(i),
            Node::Bool(true) => self.out.push_str("True"),
            Node::Bool(false) => self.out.push_str("False"),
            Node::None => self.out.push_str("None"),
            Node::Tuple(items, kind) => {
                let rule = match kind {
                    TupleKind::Shape => self.style.shape_comma,
                    TupleKind::Other => self.style.tuple_comma,
                };
                let t = self.comma(rule, items.len(), true);
                self.seq(Cont::Tuple, items, t);
            }
            Node::List(items) => {
                let t = self.comma(self.style.list_comma, items.len(), false);
                self.seq(Cont::List, items, t);
            }
        }
    }

    fn int(&mut self, i: &Int) {
        self.out.push_str(&i.to_string());
        let l = match self.style.long_suffix {
            _ if !self.latin1() => false,
            Long::Never => false,
            Long::All => true,
            Long::Mixed => self.tape.coin(),
        };
        if l {
            self.out.push('L');
            self.long = true;
        }
    }

    fn string(&mut self, s: &str) {
        let quote = match self.style.quotes {
            Quotes::Repr => {
                if s.contains('\'') && !s.contains('"') {
                    '"'
                } else {
                    '\''
                }
            }
            Quotes::Single => '\'',
            Quotes::Double => '"',
            Quotes::Mixed => {
                if self.tape.coin() {
                    '"'
                } else {
                    '\''
                }
            }
        };
        self.out.push(quote);
        for c in s.chars() {
            match self.style.escapes {
                Escapes::Repr => self.repr_char(c, quote),
                Escapes::Mixed => self.mixed_char(c, quote),
            }
        }
        self.out.push(quote);
    }

    /// Python's `repr` of one character (escaping what latin-1 cannot hold in 1.0/2.0).
    fn repr_char(&mut self, c: char, quote: char) {
        match c {
            '\\' => self.out.push_str("\\\\"),
            '\n' => self.out.push_str("\\n"),
            '\r' => self.out.push_str("\\r"),
            '\t' => self.out.push_str("\\t"),
            c if c == quote => {
                self.out.push('\\');
                self.out.push(c);
            }
            c if is_printable(c) && !(self.latin1() && u32::from(c) > 0xff) => self.out.push(c),
            c => {
                let u = u32::from(c);
                if u < 0x100 {
                    self.out.push_str(&format!("\\x{u:02x}"));
                } else if u < 0x10000 {
                    self.out.push_str(&format!("\\u{u:04x}"));
                } else {
                    self.out.push_str(&format!("\\U{u:08x}"));
                }
            }
        }
    }

    /// One character written raw or as any escape naming it, as the tape says.
    fn mixed_char(&mut self, c: char, quote: char) {
        let u = u32::from(c);
        let must_escape =
            u < 0x20 || u == 0x7f || c == '\\' || c == quote || (self.latin1() && u > 0xff);
        let named = match c {
            '\\' => Some("\\\\"),
            '\n' => Some("\\n"),
            '\r' => Some("\\r"),
            '\t' => Some("\\t"),
            '\'' => Some("\\'"),
            '"' => Some("\\\""),
            _ => None,
        };
        let mut forms: Vec<u8> = Vec::with_capacity(5);
        if !must_escape {
            // Raw twice: half of the characters stay readable.
            forms.extend([0, 0]);
        }
        if named.is_some() {
            forms.push(1);
        }
        if u <= 0xff {
            forms.push(2);
        }
        if u <= 0xffff {
            forms.push(3);
        }
        forms.push(4);
        match forms[self.tape.below(forms.len())] {
            0 => self.out.push(c),
            1 => self.out.push_str(named.expect("named escape")),
            2 => self.hex_escape('x', u, 2),
            3 => self.hex_escape('u', u, 4),
            _ => self.hex_escape('U', u, 8),
        }
    }

    fn hex_escape(&mut self, kind: char, u: u32, digits: usize) {
        self.out.push('\\');
        self.out.push(kind);
        for ch in format!("{u:0digits$x}").chars() {
            let upper = self.tape.coin();
            self.out
                .push(if upper { ch.to_ascii_uppercase() } else { ch });
        }
    }

    // ------------------------------------------------------------ descr --

    fn descr(&mut self, d: &Dtype) -> Node {
        match d {
            Dtype::Record(r) => self.record(r),
            other => Node::Str(self.typestr(other)),
        }
    }

    fn typestr(&mut self, d: &Dtype) -> String {
        let (order, code) = typestr_parts(d);
        let variants = self.style.typestr_variants;
        let order = match order {
            // One-byte, S and V types: the byte order is irrelevant and any prefix reads the same.
            None if variants => ['|', '<', '>', '='][self.tape.below(4)],
            None => '|',
            Some(e) if variants && e == Endian::HOST.prefix() && self.tape.coin() => '=',
            Some(e) => e,
        };
        let code = if variants {
            match d {
                Dtype::DateTime(u, _) | Dtype::TimeDelta(u, _) => {
                    let base = &code[..2];
                    match (u.unit, u.multiple) {
                        (TimeUnit::Generic, _) if self.tape.coin() => format!("{base}[generic]"),
                        (unit, 1) if unit != TimeUnit::Generic && self.tape.coin() => {
                            format!("{base}[1{}]", unit_code(unit))
                        }
                        _ => code,
                    }
                }
                _ => code,
            }
        } else {
            code
        };
        format!("{order}{code}")
    }

    fn pad_nodes(&mut self, n: usize, out: &mut Vec<Node>) {
        // With variants on, a gap may be written as two padding fields.
        let mut parts = vec![n];
        if self.style.typestr_variants && n >= 2 && self.tape.coin() {
            let a = 1 + self.tape.below(n - 1);
            parts = vec![a, n - a];
        }
        for k in parts {
            let ts = self.typestr(&Dtype::Void(k));
            out.push(Node::Tuple(
                vec![Node::Str(String::new()), Node::Str(ts)],
                TupleKind::Other,
            ));
        }
    }

    fn record(&mut self, r: &Record) -> Node {
        let mut items = Vec::new();
        let mut cursor = 0usize;
        for f in &r.fields {
            if f.offset > cursor {
                self.pad_nodes(f.offset - cursor, &mut items);
            }
            let name = match &f.title {
                Some(t) => Node::Tuple(
                    vec![
                        Node::from_literal(&Literal::new(t.value().clone())),
                        Node::Str(text_name(&f.name)),
                    ],
                    TupleKind::Other,
                ),
                None => Node::Str(text_name(&f.name)),
            };
            let mut t = vec![name, self.descr(&f.dtype)];
            if !f.shape.is_empty() || (self.style.typestr_variants && self.tape.below(4) == 0) {
                t.push(Node::Tuple(
                    f.shape
                        .iter()
                        .map(|&d| Node::Int(Int::Small(d as u64)))
                        .collect(),
                    TupleKind::Other,
                ));
            }
            items.push(Node::Tuple(t, TupleKind::Other));
            let size = f.shape.iter().fold(f.dtype.itemsize(), |acc, &d| acc * d);
            cursor = f.offset + size;
        }
        if r.itemsize > cursor {
            self.pad_nodes(r.itemsize - cursor, &mut items);
        }
        Node::List(items)
    }
}

fn unit_code(u: TimeUnit) -> &'static str {
    match u {
        TimeUnit::Generic => "generic",
        TimeUnit::Year => "Y",
        TimeUnit::Month => "M",
        TimeUnit::Week => "W",
        TimeUnit::Day => "D",
        TimeUnit::Hour => "h",
        TimeUnit::Minute => "m",
        TimeUnit::Second => "s",
        TimeUnit::Milli => "ms",
        TimeUnit::Micro => "us",
        TimeUnit::Nano => "ns",
        TimeUnit::Pico => "ps",
        TimeUnit::Femto => "fs",
        TimeUnit::Atto => "as",
    }
}

fn unit_suffix(u: &DateUnit) -> String {
    match (u.unit, u.multiple) {
        (TimeUnit::Generic, _) => String::new(),
        (unit, 1) => format!("[{}]", unit_code(unit)),
        (unit, m) => format!("[{m}{}]", unit_code(unit)),
    }
}

/// The byte-order character (`None` where the order does not apply) and the type code.
fn typestr_parts(d: &Dtype) -> (Option<char>, String) {
    let p = |e: &Endian| {
        Some(match e {
            Endian::Little => '<',
            Endian::Big => '>',
        })
    };
    match d {
        Dtype::Bool => (None, "b1".into()),
        Dtype::I8 => (None, "i1".into()),
        Dtype::U8 => (None, "u1".into()),
        Dtype::I16(e) => (p(e), "i2".into()),
        Dtype::I32(e) => (p(e), "i4".into()),
        Dtype::I64(e) => (p(e), "i8".into()),
        Dtype::U16(e) => (p(e), "u2".into()),
        Dtype::U32(e) => (p(e), "u4".into()),
        Dtype::U64(e) => (p(e), "u8".into()),
        Dtype::F16(e) => (p(e), "f2".into()),
        Dtype::F32(e) => (p(e), "f4".into()),
        Dtype::F64(e) => (p(e), "f8".into()),
        Dtype::C64(e) => (p(e), "c8".into()),
        Dtype::C128(e) => (p(e), "c16".into()),
        Dtype::LongDouble(e) => (p(e), "f16".into()),
        Dtype::CLongDouble(e) => (p(e), "c32".into()),
        Dtype::Bytes(n) => (None, format!("S{n}")),
        Dtype::Unicode(n, e) => (p(e), format!("U{n}")),
        Dtype::Void(n) => (None, format!("V{n}")),
        Dtype::DateTime(u, e) => (p(e), format!("M8{}", unit_suffix(u))),
        Dtype::TimeDelta(u, e) => (p(e), format!("m8{}", unit_suffix(u))),
        Dtype::Record(r) => (None, format!("V{}", r.itemsize)),
        other => panic!("unknown dtype {other:?}"),
    }
}

/// A field name as text: this oracle renders text names only (names holding a lone
/// surrogate are checked against NumPy's output in `tests/library/surrogate_names.rs`).
fn text_name(name: &npyguard::FieldName) -> String {
    name.as_str()
        .expect("the repr oracle takes text field names")
        .to_string()
}
