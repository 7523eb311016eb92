//! `_formatArray`: the nested brackets of the shown elements, one block per line for the
//! outer axes and the last axis wrapped at the line width, whatever the elements are (the
//! caller gives each one's text). Widths count characters, as Python's `len`.

use crate::data::layout::strides;
use crate::error::{Error, ErrorKind, Result};
use crate::render::bounds::EDGE;

/// The separator `array_repr` passes to `array2string`.
const SEPARATOR: &str = ", ";

/// Python's `len` of `s`: its characters.
pub(super) fn chars(s: &str) -> usize {
    s.chars().count()
}

/// The items `_formatArray` visits along one axis: the leading ones, the summary `...`, the
/// trailing ones but the last, and the last.
struct Items {
    leading: std::ops::Range<usize>,
    summary: bool,
    trailing: std::ops::Range<usize>,
    last: usize,
}

impl Items {
    fn new(n: usize, summary: bool) -> Items {
        let last = n.saturating_sub(1);
        if summary {
            Items {
                leading: 0..EDGE,
                summary,
                trailing: n.saturating_sub(EDGE)..last,
                last,
            }
        } else {
            Items {
                leading: 0..0,
                summary,
                trailing: 0..last,
                last,
            }
        }
    }
}

/// One axis of the shown elements: its length, its stride in elements (C order), and
/// whether it is summarised.
struct Axis {
    len: usize,
    stride: usize,
    summarised: bool,
}

/// `_formatArray` over the shown elements: `element(i)` is element `i` (C order) as text.
pub(super) struct Printer<F> {
    element: F,
    axes: Vec<Axis>,
}

impl<F: Fn(usize) -> Result<String>> Printer<F> {
    /// A printer of the elements of `shape` (C order), with `summarised` per axis.
    pub(super) fn new(shape: &[usize], summarised: &[bool], element: F) -> Printer<F> {
        let axes = shape
            .iter()
            .zip(strides(shape).0)
            .zip(summarised)
            .map(|((&len, stride), &summarised)| Axis {
                len,
                stride,
                summarised,
            })
            .collect();
        Printer { element, axes }
    }

    /// `_formatArray(a, format_function, line_width, next_line_prefix, separator, edge_items,
    /// summary_insert)`: the nested lists, the first line's indent left to the caller.
    pub(super) fn print(&self, hanging: &str, width: usize) -> Result<String> {
        self.recurse(&self.axes, 0, hanging, width)
    }

    /// `recurser(index, hanging_indent, curr_width)` for the block at element `offset`
    /// spanning `axes`.
    fn recurse(&self, axes: &[Axis], offset: usize, hanging: &str, width: usize) -> Result<String> {
        let Some((axis, inner)) = axes.split_first() else {
            return (self.element)(offset);
        };
        // When recursing, add a space to align with the `[` and take one off the width.
        let next_hanging = format!("{hanging} ");
        let next_width = width.saturating_sub(1);
        let item = |k: usize| {
            let at = offset.saturating_add(k.saturating_mul(axis.stride));
            self.recurse(inner, at, &next_hanging, next_width)
        };
        let items = Items::new(axis.len, axis.summarised);
        let s = if inner.is_empty() {
            row(&items, item, hanging, width)?
        } else {
            rows(&items, item, hanging, axes.len())?
        };
        // Remove the hanging indent (every block starts with it) and wrap in [].
        let body = s.strip_prefix(hanging).ok_or_else(|| {
            Error::unplaced(ErrorKind::Internal, "a block starting with its indent")
                .found(format!("{s:?}"))
        })?;
        Ok(format!("[{body}]"))
    }
}

/// The last axis: elements wrapped so that no line passes `width` (less the `]`).
fn row(
    items: &Items,
    item: impl Fn(usize) -> Result<String>,
    hanging: &str,
    width: usize,
) -> Result<String> {
    // The width up to the separator or bracket: max(len(', '.rstrip()), len(']')) = 1.
    let elem_width = width.saturating_sub(1);
    let mut s = String::new();
    let mut line = hanging.to_string();
    for k in items.leading.clone() {
        extend_line_pretty(&mut s, &mut line, &item(k)?, elem_width, hanging);
        line.push_str(SEPARATOR);
    }
    if items.summary {
        extend_line(&mut s, &mut line, "...", elem_width, hanging);
        line.push_str(SEPARATOR);
    }
    for k in items.trailing.clone() {
        extend_line_pretty(&mut s, &mut line, &item(k)?, elem_width, hanging);
        line.push_str(SEPARATOR);
    }
    extend_line_pretty(&mut s, &mut line, &item(items.last)?, elem_width, hanging);
    s.push_str(&line);
    Ok(s)
}

/// The other axes: one block per line, blank lines between blocks of 3-D and more.
fn rows(
    items: &Items,
    item: impl Fn(usize) -> Result<String>,
    hanging: &str,
    axes_left: usize,
) -> Result<String> {
    let line_sep = format!(",{}", "\n".repeat(axes_left.saturating_sub(1)));
    let mut s = String::new();
    let mut push = |block: &str, sep: &str| {
        s.push_str(hanging);
        s.push_str(block);
        s.push_str(sep);
    };
    for k in items.leading.clone() {
        push(&item(k)?, &line_sep);
    }
    if items.summary {
        push("...", &line_sep);
    }
    for k in items.trailing.clone() {
        push(&item(k)?, &line_sep);
    }
    push(&item(items.last)?, "");
    Ok(s)
}

/// `_extendLine`: appends `word` to `line`, first moving `line` to `s` when the word would
/// pass `width` (unless the line holds only the prefix: wrapping would not help).
fn extend_line(s: &mut String, line: &mut String, word: &str, width: usize, prefix: &str) {
    let line_len = chars(line);
    if line_len.saturating_add(chars(word)) > width && line_len > chars(prefix) {
        s.push_str(line.trim_end());
        s.push('\n');
        line.clear();
        line.push_str(prefix);
    }
    line.push_str(word);
}

/// `_extendLine_pretty`: [`extend_line`] for a word of several lines, which is kept as a
/// block aligned under its first line.
fn extend_line_pretty(s: &mut String, line: &mut String, word: &str, width: usize, prefix: &str) {
    let words: Vec<&str> = word.lines().collect();
    let (Some(first), Some(last), true) = (words.first(), words.last(), words.len() > 1) else {
        return extend_line(s, line, word, width, prefix);
    };
    let max_len = words.iter().map(|w| chars(w)).fold(0, usize::max);
    let line_len = chars(line);
    let indent = if line_len.saturating_add(max_len) > width && line_len > chars(prefix) {
        s.push_str(line.trim_end());
        s.push('\n');
        *line = format!("{prefix}{first}");
        prefix.to_string()
    } else {
        line.push_str(first);
        " ".repeat(line_len)
    };
    for w in words.iter().skip(1) {
        s.push_str(line.trim_end());
        s.push('\n');
        *line = format!("{indent}{w}");
    }
    line.push_str(&" ".repeat(max_len.saturating_sub(chars(last))));
}
