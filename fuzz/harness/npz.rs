//! Target `npz`: `.npz` archives (feature `npz`), raw or structure-aware.
//!
//! The first input byte selects the mode:
//! * even (every zip starts with `P`, 0x50): **raw** — the whole input is an
//!   archive, opened with small limits (`max_file_bytes` 1 MiB per member,
//!   `max_npz_total_bytes` 4 MiB, `max_npz_members` 64);
//! * odd: **structure-aware** — the rest of the input (via `arbitrary`) is a
//!   list of (name, small array), stored or deflated, written by `savez` /
//!   `savez_compressed`, then optionally a few bytes of the archive are
//!   overwritten at arbitrary positions; the (mutated) archive then goes
//!   through the raw checks.
//!
//! Properties of the raw mode (any bytes):
//! * no panic;
//! * an accepted archive has at most 64 members, each member's compressed
//!   bytes lie inside the archive;
//! * reading the arrays through `arrays()` and one by one through
//!   `array("<member>.npy")` in the same order on a fresh archive gives the
//!   same arrays or the same errors (kind and offset), and `read_npz_bytes`
//!   gives those arrays or the first of those errors;
//! * every member (`.npy` or not) can be `verify_member`ed without a panic,
//!   and a verified member's size is the size it declares;
//! * on a fresh archive each, `view` of a stored member and `row_chunks` of any member
//!   succeed exactly when `array` does, with the same values (a deflated member's view is
//!   refused as `InvalidInput`).
//!
//! Properties of the structure-aware mode, unmutated:
//! * `savez`/`savez_compressed` refuse only duplicate names or names with NUL;
//! * the archive opens; it holds exactly the members `<name>.npy` in order,
//!   with the compression asked for; every array reads back identical
//!   (dtype, order, shape, `np.save` bytes) through `read_all`, `arrays()`,
//!   `array(...)` and `read_npz_bytes`; every member verifies.

use std::collections::HashSet;
use std::io::Cursor;

use arbitrary::{Result as AResult, Unstructured};
use npyguard::npz::{read_npz_bytes, savez, savez_compressed, Compression, NpzArchive};
use npyguard::{Array, ErrorKind, Header, ReadOptions};

#[path = "common.rs"]
mod common;

use common::{assert_same, error_outcome, outcome, Outcome};

/// Limit on each member's decompressed `.npy` bytes.
const MAX_FILE_BYTES: u64 = 1 << 20;
/// Limit on all decompressed bytes read through one archive.
const MAX_TOTAL_BYTES: u64 = 4 << 20;
/// Limit on the number of members.
const MAX_MEMBERS: usize = 64;
/// Most arrays the structure-aware mode writes.
const MAX_ARRAYS: usize = 6;
/// Largest payload of one generated array.
const MAX_PAYLOAD: usize = 2 * 1024;
/// Most bytes the structure-aware mode overwrites in the written archive.
const MAX_MUTATIONS: usize = 4;

fn opts() -> ReadOptions {
    ReadOptions::new()
        .with_max_file_bytes(Some(MAX_FILE_BYTES))
        .with_max_npz_total_bytes(Some(MAX_TOTAL_BYTES))
        .with_max_npz_members(Some(MAX_MEMBERS))
}

pub fn run(data: &[u8]) {
    match data.first() {
        Some(b) if b & 1 == 1 => structured(&data[1..]),
        _ => raw(data),
    }
}

// ----------------------------------------------------------------------- raw --

fn raw(bytes: &[u8]) {
    let opts = opts();
    let Ok(mut archive) = NpzArchive::new(Cursor::new(bytes), &opts) else {
        return;
    };
    let members: Vec<(String, bool, u64)> = archive
        .members()
        .iter()
        .map(|m| (m.name().to_string(), m.is_npy(), m.size()))
        .collect();
    assert!(
        members.len() <= MAX_MEMBERS,
        "an archive of {} members accepted with max_npz_members {MAX_MEMBERS}",
        members.len()
    );
    for m in archive.members() {
        let end = m.offset().checked_add(m.compressed_size());
        assert!(
            end.is_some_and(|e| e <= bytes.len() as u64),
            "member {:?} at {} with {} compressed bytes lies outside the {}-byte archive",
            m.name(),
            m.offset(),
            m.compressed_size(),
            bytes.len()
        );
        assert_eq!(
            m.key(),
            m.name().strip_suffix(".npy").unwrap_or(m.name()),
            "member {:?}: its key is not its name without .npy (NumPy's removesuffix)",
            m.name()
        );
    }

    // Every array through the iterator.
    let iterated: Vec<(String, Outcome)> = archive
        .arrays()
        .map(|r| match r {
            Ok((name, a)) => (name, outcome(&Ok(a))),
            Err(e) => (String::new(), error_outcome(&e)),
        })
        .collect();
    // As in NumPy, every member is an entry (sniffed by content, not by its name).
    assert!(
        npyguard::npz::looks_like_npz(bytes),
        "an archive accepted that NumPy would not open as one (first bytes {:02x?})",
        &bytes[..bytes.len().min(4)]
    );
    let npy: Vec<&(String, bool, u64)> = members.iter().collect();
    assert_eq!(
        iterated.len(),
        npy.len(),
        "arrays() yields {} items for {} members",
        iterated.len(),
        npy.len()
    );

    // The same reads, one by one, in the same order, on a fresh archive.
    let mut fresh = NpzArchive::new(Cursor::new(bytes), &opts)
        .unwrap_or_else(|e| panic!("the archive opened once, then refused: {e}"));
    for ((full, _, _), (name, got)) in npy.iter().zip(&iterated) {
        let one = fresh.array(full);
        if let Outcome::Array { .. } = got {
            assert_eq!(
                full.strip_suffix(".npy").unwrap_or(full),
                name.as_str(),
                "arrays() names member {full:?} {name:?}"
            );
        }
        assert_same(
            &format!("arrays() on {full:?}"),
            got,
            &format!("array({full:?})"),
            &outcome(&one),
        );
    }

    // read_npz_bytes: the arrays, or the first error.
    let all = read_npz_bytes(bytes, &opts);
    let first_error = iterated
        .iter()
        .find(|(_, o)| matches!(o, Outcome::Error { .. }));
    match (&all, first_error) {
        (Err(e), Some((_, want))) => {
            assert_same("arrays()", want, "read_npz_bytes", &error_outcome(e))
        }
        (Ok(list), None) => {
            assert_eq!(list.len(), iterated.len(), "read_npz_bytes array count");
            for ((n, a), (name, want)) in list.iter().zip(&iterated) {
                assert_eq!(n, name, "read_npz_bytes names");
                assert_same("arrays()", want, "read_npz_bytes", &outcome(&Ok(a.clone())));
            }
        }
        (Err(e), None) => panic!("read_npz_bytes fails ({e}) where arrays() reads every array"),
        (Ok(_), Some((_, want))) => {
            panic!("read_npz_bytes succeeds where arrays() fails: {want:?}")
        }
    }

    // Parts of members, each on a fresh archive (no running total): a stored member's view
    // and any member's row chunks succeed exactly when the whole read does, with its rows
    // (the first 4 members: every member is already read three ways above).
    for (full, _, _) in npy.iter().take(4) {
        parts_agree(bytes, &opts, full);
    }

    // Headers and verification of every member (no panic; sizes as declared).
    for (full, is_npy, size) in &members {
        if *is_npy {
            let _ = fresh.header(full);
        }
        if let Ok(n) = fresh.verify_member(full) {
            assert_eq!(n, *size, "verify_member({full:?}) size");
        }
    }
}

/// `NpzArchive::view` and `NpzArchive::row_chunks` against `array` for member `full`.
fn parts_agree(bytes: &[u8], opts: &ReadOptions, full: &str) {
    let open = || NpzArchive::new(Cursor::new(bytes), opts).expect("opened before");
    let whole = open().array(full);
    let stored = open().member(full).map(|m| m.compression()) == Some(Compression::Stored);
    match (open().view(bytes, full), &whole) {
        (Ok(v), Ok(a)) => {
            let got = v.to_array().expect("a view that validated decodes");
            assert_eq!(
                common::c_payload(&got),
                common::c_payload(a),
                "view({full:?}) reads the array"
            );
        }
        (Err(e), _) if !stored => {
            assert_eq!(
                e.kind(),
                ErrorKind::InvalidInput,
                "view of a deflated member"
            )
        }
        (Err(_), Err(_)) => {}
        (v, w) => panic!(
            "view({full:?}) and array() disagree: {:?} vs {:?}",
            v.map(|v| v.header().clone()),
            w.as_ref().map(|a| a.shape().to_vec())
        ),
    }
    // 1 to 4 chunks (more only make the run slower, not the check stronger); a member the
    // read refuses in large chunks (its header may claim 2**40 rows the bytes never hold).
    let rows = whole
        .as_ref()
        .ok()
        .and_then(|a| a.shape().first().copied())
        .unwrap_or(1 << 20);
    let step = rows.div_ceil(1 + full.len() % 4).max(1);
    let mut archive = open();
    let chunks: npyguard::Result<Vec<Array>> =
        archive.row_chunks(full, step).and_then(|c| c.collect());
    match (&chunks, &whole) {
        (Ok(parts), Ok(a)) => {
            let joined: Vec<u8> = parts.iter().flat_map(common::c_payload).collect();
            assert_eq!(
                joined,
                common::c_payload(a),
                "row_chunks({full:?}) are the array's rows"
            );
        }
        (Err(_), Err(_)) => {}
        (c, w) => panic!(
            "row_chunks({full:?}) and array() disagree: {:?} vs {:?}",
            c.as_ref().map(Vec::len).map_err(|e| e.to_string()),
            w.as_ref()
                .map(|a| a.shape().to_vec())
                .map_err(|e| e.to_string())
        ),
    }
}

// ------------------------------------------------------------ structure-aware --

/// A short array name: arbitrary text (any Unicode, `/`, `.`, controls, NUL), maybe empty.
fn name(u: &mut Unstructured<'_>, i: usize) -> AResult<String> {
    if u.ratio(1u8, 3)? {
        return Ok(format!("arr_{i}"));
    }
    let len = u.int_in_range(0..=8)?;
    let mut s = String::new();
    for _ in 0..len {
        s.push(u.arbitrary::<char>()?);
    }
    Ok(s)
}

fn array(u: &mut Unstructured<'_>) -> AResult<Array> {
    let dtype = common::dtype(u)?;
    let shape = common::shape(u, dtype.itemsize(), MAX_PAYLOAD)?;
    let fortran = u.arbitrary::<bool>()?;
    let header = Header::new(dtype.clone(), shape.clone(), fortran).unwrap_or_else(|e| {
        panic!("Header::new refuses a bounded shape: {e}; {dtype:?} {shape:?}")
    });
    let values = common::array_data(u, &dtype, header.element_count())?;
    common::new_array(header, values).ok_or(arbitrary::Error::IncorrectFormat)
}

fn structured(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(compressed) = u.arbitrary::<bool>() else {
        return;
    };
    let Ok(n) = u.int_in_range(0..=MAX_ARRAYS) else {
        return;
    };
    let mut arrays = Vec::with_capacity(n);
    for i in 0..n {
        let (Ok(nm), Ok(a)) = (name(&mut u, i), array(&mut u)) else {
            break;
        };
        arrays.push((nm, a));
    }
    let mut mutations = Vec::new();
    if let Ok(k) = u.int_in_range(0..=MAX_MUTATIONS) {
        for _ in 0..k {
            let (Ok(pos), Ok(byte)) = (u.arbitrary::<u32>(), u.arbitrary::<u8>()) else {
                break;
            };
            mutations.push((pos as usize, byte));
        }
    }

    let refs: Vec<(&str, &Array)> = arrays.iter().map(|(n, a)| (n.as_str(), a)).collect();
    let written = if compressed {
        savez_compressed(Cursor::new(Vec::new()), &refs)
    } else {
        savez(Cursor::new(Vec::new()), &refs)
    };
    let names_ok = {
        let mut seen = HashSet::new();
        arrays
            .iter()
            .all(|(n, _)| !n.contains('\0') && seen.insert(n.as_str()))
    };
    let mut bytes = match written {
        Ok(c) => {
            assert!(names_ok, "savez accepts duplicate names or a NUL in a name");
            c.into_inner()
        }
        Err(e) => {
            assert!(
                !names_ok && e.kind() == ErrorKind::InvalidInput,
                "savez (compressed {compressed}) refuses distinct names without NUL: {e}; names {:?}",
                arrays.iter().map(|(n, _)| n).collect::<Vec<_>>()
            );
            return;
        }
    };

    if mutations.is_empty() {
        read_back(&bytes, &arrays, compressed);
    } else if !bytes.is_empty() {
        let len = bytes.len();
        for (pos, byte) in mutations {
            bytes[pos % len] = byte;
        }
    }
    raw(&bytes);
}

/// The unmutated archive reads back exactly what was written.
fn read_back(bytes: &[u8], arrays: &[(String, Array)], compressed: bool) {
    let opts = opts();
    let names: Vec<&String> = arrays.iter().map(|(n, _)| n).collect();
    let ctx = || format!("names {names:?}, compressed {compressed}");
    let mut archive = NpzArchive::new(Cursor::new(bytes), &opts)
        .unwrap_or_else(|e| panic!("the reader refuses savez's archive: {e}; {}", ctx()));
    let want_method = if compressed {
        Compression::Deflated
    } else {
        Compression::Stored
    };
    let members = archive.members();
    assert_eq!(members.len(), arrays.len(), "member count; {}", ctx());
    for (m, (n, _)) in members.iter().zip(arrays) {
        assert_eq!(m.name(), format!("{n}.npy"), "member name; {}", ctx());
        assert_eq!(m.key(), n.as_str(), "array name; {}", ctx());
        assert_eq!(
            m.compression(),
            want_method,
            "compression of {n:?}; {}",
            ctx()
        );
    }
    let sizes: Vec<u64> = members.iter().map(|m| m.size()).collect();

    let all = archive
        .read_all()
        .unwrap_or_else(|e| panic!("read_all refuses savez's archive: {e}; {}", ctx()));
    assert_eq!(all.len(), arrays.len(), "read_all count; {}", ctx());
    for ((got_name, got), (n, want)) in all.iter().zip(arrays) {
        assert_eq!(got_name, n, "read_all names; {}", ctx());
        assert_same(
            &format!("written {n:?}"),
            &outcome(&Ok(want.clone())),
            "read back",
            &outcome(&Ok(got.clone())),
        );
        let one = archive
            .array(&format!("{n}.npy"))
            .unwrap_or_else(|e| panic!("array({n:?}.npy) refused: {e}; {}", ctx()));
        assert_same(
            &format!("written {n:?}"),
            &outcome(&Ok(want.clone())),
            "array()",
            &outcome(&Ok(one)),
        );
    }
    for ((n, _), size) in arrays.iter().zip(&sizes) {
        let got = archive
            .verify_member(&format!("{n}.npy"))
            .unwrap_or_else(|e| panic!("verify_member({n:?}.npy) refused: {e}; {}", ctx()));
        assert_eq!(got, *size, "verify_member size of {n:?}; {}", ctx());
        assert_eq!(
            got,
            common::saved(&arrays.iter().find(|(m, _)| m == n).unwrap().1).len() as u64,
            "member {n:?} is not np.save's bytes; {}",
            ctx()
        );
    }
    let again = read_npz_bytes(bytes, &opts)
        .unwrap_or_else(|e| panic!("read_npz_bytes refuses savez's archive: {e}; {}", ctx()));
    assert_eq!(again.len(), arrays.len());
    for ((got_name, got), (n, want)) in again.iter().zip(arrays) {
        assert_eq!(got_name, n, "read_npz_bytes names; {}", ctx());
        assert_same(
            &format!("written {n:?}"),
            &outcome(&Ok(want.clone())),
            "read_npz_bytes",
            &outcome(&Ok(got.clone())),
        );
    }
}
