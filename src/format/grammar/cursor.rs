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
