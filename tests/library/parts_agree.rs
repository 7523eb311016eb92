//! Every part refuses exactly when the whole read does, with the same error kind: over every
//! NumPy fixture, the adversarial and hostile files, and cuts of the fixtures (one byte
//! short, header only, one byte past the payload), each door is asked for the whole array:
//!
//! - the dynamic whole read `read_bytes` (the reference) and `read_from` (a stream);
//! - `View::new`; `ArrayView::<T>::new` against `NpyArray::<T>::read_bytes` for `f64` and `i32`;
//! - `RowReader::new` + `read_rows(0..n)`; `RowChunks` (every chunk);
//! - an `.npz` member (stored): `NpzArchive::array` and `NpzArchive::row_chunks`.

use std::io::Cursor;
use std::path::PathBuf;

use npyguard::npz::NpzArchive;
use npyguard::{
    read_bytes, read_from, ArrayView, Element, ErrorKind, NpyArray, ReadOptions, RowChunks,
    RowReader, View,
};

fn files() -> Vec<(String, Vec<u8>)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut out = Vec::new();
    for dir in ["fixtures/npy", "adversarial", "hostile"] {
        let mut names: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .expect("dir")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|x| x == "npy"))
            .collect();
        names.sort();
        for p in names {
            let bytes = std::fs::read(&p).expect("read");
            let name = format!("{dir}/{}", p.file_name().unwrap().to_string_lossy());
            if dir == "fixtures/npy" {
                let h = npyguard::Header::from_bytes(&bytes, &opts()).expect("fixture header");
                let at = h.payload_offset() as usize;
                out.push((
                    format!("{name} one byte short"),
                    bytes[..bytes.len() - 1].to_vec(),
                ));
                out.push((format!("{name} header only"), bytes[..at].to_vec()));
                let mut long = bytes.clone();
                long.push(0);
                out.push((format!("{name} one byte more"), long));
            }
            out.push((name, bytes));
        }
    }
    assert!(out.len() > 1900, "{}", out.len());
    out
}

fn opts() -> ReadOptions {
    ReadOptions::default().with_max_header_bytes(1 << 20)
}

type Outcome = Result<(), ErrorKind>;

fn kind<T, E: Into<npyguard::Error>>(r: Result<T, E>) -> Outcome {
    r.map(|_| ()).map_err(|e| e.into().kind())
}

fn rows(bytes: &[u8]) -> Outcome {
    let mut r = RowReader::new(Cursor::new(bytes), &opts()).map_err(|e| e.kind())?;
    let n = r.header().shape().first().copied().unwrap_or(1);
    kind(r.read_rows(0..n))
}

fn chunks(bytes: &[u8]) -> Outcome {
    let c = RowChunks::new(Cursor::new(bytes), 3, &opts()).map_err(|e| e.kind())?;
    for chunk in c {
        chunk.map_err(|e| e.kind())?;
    }
    Ok(())
}

fn typed<T: Element>(bytes: &[u8]) -> (Outcome, Outcome) {
    (
        kind(NpyArray::<T>::read_bytes(bytes, &opts())),
        kind(ArrayView::<T>::new(bytes, &opts())),
    )
}

/// The file as the only member of a stored archive; `None` when it cannot be one (a whole
/// read refuses it: an archive of invalid bytes is still written).
fn npz_parts(bytes: &[u8]) -> (Outcome, Outcome) {
    let Ok(zip) = savez_raw(bytes) else {
        return (Ok(()), Ok(()));
    };
    let whole = NpzArchive::new(Cursor::new(&zip), &opts()).and_then(|mut z| z.array("a"));
    let parts = NpzArchive::new(Cursor::new(&zip), &opts()).and_then(|mut z| {
        for c in z.row_chunks("a", 3)? {
            c?;
        }
        Ok(())
    });
    (kind(whole), kind(parts))
}

/// A stored archive holding `bytes` as `a.npy`, whatever they are.
fn savez_raw(bytes: &[u8]) -> Result<Vec<u8>, ()> {
    use std::io::Write;
    let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let o =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    w.start_file("a.npy", o).map_err(|_| ())?;
    w.write_all(bytes).map_err(|_| ())?;
    Ok(w.finish().map_err(|_| ())?.into_inner())
}

#[test]
fn every_part_refuses_exactly_when_the_whole_read_does() {
    let mut disagreements = Vec::new();
    let mut refused = 0;
    let files = files();
    for (name, bytes) in &files {
        let whole = kind(read_bytes(bytes, &opts()));
        refused += usize::from(whole.is_err());
        let doors: Vec<(&str, Outcome)> = vec![
            ("read_from", kind(read_from(&bytes[..], &opts()))),
            ("View::new", kind(View::new(bytes, &opts()))),
            ("RowReader", rows(bytes)),
            ("RowChunks", chunks(bytes)),
        ];
        for (door, got) in doors {
            if got != whole {
                disagreements.push(format!("{name}: {door} {got:?}, read_bytes {whole:?}"));
            }
        }
        for (t, (want, got)) in [("f64", typed::<f64>(bytes)), ("i32", typed::<i32>(bytes))] {
            if got != want {
                disagreements.push(format!(
                    "{name}: ArrayView::<{t}> {got:?}, NpyArray::<{t}>::read_bytes {want:?}"
                ));
            }
        }
        let (member_whole, member_parts) = npz_parts(bytes);
        if member_parts != member_whole {
            disagreements.push(format!(
                "{name}: npz row_chunks {member_parts:?}, npz array {member_whole:?}"
            ));
        }
    }
    assert!(refused > 1300, "{refused} refusals");
    assert!(
        disagreements.is_empty(),
        "{} disagreements:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
}

/// A row reader made from an input opened as a stream checks the input's length when it
/// starts seeking, as one opened with its length does: a short file is refused up front.
#[test]
fn rows_of_a_stream_opened_input_check_the_length() {
    use npyguard::{ErrorKind, Opened};
    use std::io::Cursor;
    let a = npyguard::NpyArray::from_vec((0..12i32).collect(), vec![4, 3]).unwrap();
    let file = npyguard::write::to_vec(&a.to_array()).unwrap();
    let opts = npyguard::ReadOptions::default();
    let short = Cursor::new(file[..file.len() - 4].to_vec());
    let err = Opened::stream(short, &opts)
        .unwrap()
        .into_rows()
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Truncated);
    let longer = Cursor::new([&file[..], b"x"].concat());
    let err = Opened::stream(longer, &opts)
        .unwrap()
        .into_rows()
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::TrailingBytes);
    let mut rows = Opened::stream(Cursor::new(file), &opts)
        .unwrap()
        .into_rows()
        .unwrap();
    assert_eq!(
        rows.read_rows(1..2).unwrap().data(),
        &npyguard::ArrayData::I32(vec![3, 4, 5].into())
    );
}
