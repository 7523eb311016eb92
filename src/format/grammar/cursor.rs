//! The parser's cursor: where it is in the header text, and how a rule fails.
//!
//! [`Cursor`] is the input type of every grammar rule: the bytes not yet consumed and the
//! offset of the first of them. It implements nom's `Input` and `Compare` by delegating
//! to the byte slice, so the rules advance only through nom's combinators and the
//! cursor's own methods (no rule slices its input by hand), and every error offset is
//! the cursor's.

use nom::error::{ErrorKind as NomKind, ParseError};
use nom::{Compare, CompareResult, IResult, Input, Needed};

use crate::error::ErrorKind;
use crate::format::preamble::Encoding;

/// The unparsed rest of the header text and its offset in the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cursor<'a> {
    rest: &'a [u8],
    offset: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `text`.
    pub(crate) fn new(text: &'a [u8]) -> Cursor<'a> {
        Cursor {
            rest: text,
            offset: 0,
        }
    }

    /// Offset of the next byte in the header text.
    pub(crate) fn offset(&self) -> usize {
        self.offset
    }

    /// The next byte, not consumed.
    pub(crate) fn peek(&self) -> Option<u8> {
        self.rest.first().copied()
    }

    /// The bytes not yet consumed.
    pub(crate) fn bytes(&self) -> &'a [u8] {
        self.rest
    }

    /// The cursor after the next `n` bytes (or at the end).
    pub(crate) fn skip(&self, n: usize) -> Cursor<'a> {
        self.take_from(n)
    }
}

impl<'a> Input for Cursor<'a> {
    type Item = u8;
    type Iter = core::iter::Copied<core::slice::Iter<'a, u8>>;
    type IterIndices = core::iter::Enumerate<Self::Iter>;

    fn input_len(&self) -> usize {
        self.rest.len()
    }
    fn take(&self, index: usize) -> Self {
        Cursor {
            rest: self.rest.get(..index).unwrap_or(self.rest),
            offset: self.offset,
        }
    }
    fn take_from(&self, index: usize) -> Self {
        let index = index.min(self.rest.len());
        Cursor {
            rest: self.rest.get(index..).unwrap_or_default(),
            offset: self.offset.saturating_add(index),
        }
    }
    fn take_split(&self, index: usize) -> (Self, Self) {
        (self.take_from(index), self.take(index))
    }
    fn position<P: Fn(u8) -> bool>(&self, predicate: P) -> Option<usize> {
        self.rest.iter().position(|&b| predicate(b))
    }
    fn iter_elements(&self) -> Self::Iter {
        self.rest.iter().copied()
    }
    fn iter_indices(&self) -> Self::IterIndices {
        self.iter_elements().enumerate()
    }
    fn slice_index(&self, count: usize) -> Result<usize, Needed> {
        if self.rest.len() >= count {
            Ok(count)
        } else {
            Err(Needed::new(count.saturating_sub(self.rest.len())))
        }
    }
}

impl<'b> Compare<&'b [u8]> for Cursor<'_> {
    fn compare(&self, t: &'b [u8]) -> CompareResult {
        self.rest.compare(t)
    }
    fn compare_no_case(&self, t: &'b [u8]) -> CompareResult {
        self.rest.compare_no_case(t)
    }
}

/// A rule's result.
pub(crate) type PResult<'a, T> = IResult<Cursor<'a>, T, PError>;

/// A parse failure: where, what kind, what was expected.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PError {
    pub(crate) offset: usize,
    pub(crate) kind: ErrorKind,
    pub(crate) expected: &'static str,
}

impl<'a> ParseError<Cursor<'a>> for PError {
    fn from_error_kind(input: Cursor<'a>, _kind: NomKind) -> Self {
        PError {
            offset: input.offset(),
            kind: ErrorKind::HeaderSyntax,
            expected: "valid header syntax",
        }
    }
    fn append(_input: Cursor<'a>, _kind: NomKind, other: Self) -> Self {
        other
    }
}

/// Fails (without retry) with `expected` at `i`.
pub(crate) fn fail<'a, T>(
    i: Cursor<'a>,
    kind: ErrorKind,
    expected: &'static str,
) -> PResult<'a, T> {
    Err(nom::Err::Failure(PError {
        offset: i.offset(),
        kind,
        expected,
    }))
}

/// Consumes the literal `lit`, or fails saying it was `expected`.
pub(crate) fn expect<'a>(
    lit: &'static [u8],
    expected: &'static str,
    i: Cursor<'a>,
) -> PResult<'a, ()> {
    match nom::bytes::complete::tag::<_, _, PError>(lit)(i) {
        Ok((rest, _)) => Ok((rest, ())),
        Err(_) => fail(i, ErrorKind::HeaderSyntax, expected),
    }
}

/// Parser settings fixed for one header.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ctx {
    /// How bytes above 0x7F in strings are read.
    pub(crate) encoding: Encoding,
    /// Whether integers may carry Python 2's `L` suffix (versions 1.0 and 2.0).
    pub(crate) long_suffix: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use nom::Parser;

    /// nom's combinators see the cursor as its bytes, and every result keeps its offset.
    #[test]
    fn nom_combinators_keep_offsets() {
        let c = Cursor::new(b"{'descr': '<f8'}").skip(2);
        let (rest, word) =
            nom::bytes::complete::take_while1::<_, _, PError>(|b: u8| b.is_ascii_alphabetic())
                .parse(c)
                .unwrap();
        assert_eq!((word.bytes(), word.offset()), (&b"descr"[..], 2));
        assert_eq!((rest.peek(), rest.offset()), (Some(b'\''), 7));
        let (rest, head) = nom::bytes::complete::take_till::<_, _, PError>(|b| b == b'<')
            .parse(rest)
            .unwrap();
        assert_eq!((head.bytes(), rest.offset()), (&b"': '"[..], 11));
        let (rest, tag) = nom::bytes::complete::tag_no_case::<_, _, PError>(&b"<F8'"[..])
            .parse(rest)
            .unwrap();
        assert_eq!(
            (tag.offset(), rest.bytes(), rest.offset()),
            (11, &b"}"[..], 15)
        );
        let (_, digits) = nom::character::complete::digit1::<_, PError>
            .parse(Cursor::new(b"42,").skip(0))
            .unwrap();
        assert_eq!(digits.bytes(), b"42");
    }

    #[test]
    fn input_methods_split_where_asked() {
        let c = Cursor::new(b"abcdef").skip(1);
        let (after, before) = c.take_split(2);
        assert_eq!((before.bytes(), before.offset()), (&b"bc"[..], 1));
        assert_eq!((after.bytes(), after.offset()), (&b"def"[..], 3));
        assert_eq!(c.take(99).bytes(), b"bcdef");
        assert_eq!(c.skip(99).offset(), 6, "skipping past the end stops at it");
        assert_eq!(c.position(|b| b == b'e'), Some(3));
        assert_eq!(c.iter_indices().find(|&(_, b)| b == b'd'), Some((2, b'd')));
        assert_eq!(c.slice_index(5), Ok(5));
        assert_eq!(c.slice_index(7), Err(Needed::new(2)));
        assert_eq!(c.compare_no_case(&b"BC"[..]), CompareResult::Ok);
        assert_eq!(c.compare(&b"bx"[..]), CompareResult::Error);
    }

    #[test]
    fn nom_errors_become_header_syntax_at_the_cursor() {
        let c = Cursor::new(b"  x").skip(2);
        let e = nom::character::complete::digit1::<_, PError>
            .parse(c)
            .unwrap_err();
        let nom::Err::Error(e) = e else {
            panic!("a recoverable error: {e:?}")
        };
        assert_eq!((e.offset, e.kind), (2, ErrorKind::HeaderSyntax));
        let inner = PError::from_error_kind(c, NomKind::Tag);
        let outer = PError::append(Cursor::new(b""), NomKind::Alt, inner.clone());
        assert_eq!(outer, inner, "the innermost error is kept");
        let Err(nom::Err::Failure(f)) = expect(b"True", "True or False", c) else {
            panic!("expect fails without retry")
        };
        assert_eq!((f.offset, f.expected), (2, "True or False"));
    }
}
