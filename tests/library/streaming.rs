//! Streaming conversion (features `arrow`, `parquet`): an array converted chunk by chunk
//! (`ChunkedDataset` over `RowReader::into_chunks` and `RowChunks`) writes what the whole
//! array writes with the same batch size, for every 0-, 1- and 2-D NumPy fixture, every
//! layout it allows, every writer and several chunk sizes: the same CSV text, and IPC and
//! Parquet files that read back as the same record batches (Arrow's equality compares
//! values by their bytes, so NaN payloads count; the files' bytes may differ where a chunk
//! slices an array the whole array builds fresh).
#![cfg(feature = "parquet")]

use std::io::Cursor;
use std::path::PathBuf;

use arrow_array::RecordBatch;
use npyguard::arrow::{self, BatchSource, ChunkedDataset, Dataset, Layout, ParquetOptions};
use npyguard::{read_bytes, Array, ErrorKind, ReadOptions, RowChunks, RowReader};

fn opts() -> ReadOptions {
    ReadOptions::default().with_max_header_bytes(1 << 20)
}

fn fixtures() -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/npy");
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .filter(|(n, _)| n.ends_with(".npy"))
        .collect();
    out.sort();
    out
}

#[derive(Clone, Copy, Debug)]
enum Writer {
    Csv,
    Ipc,
    Parquet,
}

fn write(source: impl BatchSource, w: Writer, k: usize) -> npyguard::Result<Vec<u8>> {
    let mut out = Vec::new();
    match w {
        Writer::Csv => arrow::write_csv(source, &mut out, k, |_| {}),
        Writer::Ipc => arrow::write_ipc(source, &mut out, k, |_| {}),
        Writer::Parquet => {
            arrow::write_parquet(source, &mut out, k, &ParquetOptions::default(), |_| {})
        }
    }?;
    Ok(out)
}

/// What a written file reads back as: CSV text, or the record batches of an IPC or Parquet file.
#[derive(Debug, PartialEq)]
enum Read {
    Text(Vec<u8>),
    Batches(Vec<RecordBatch>),
}

fn read_back(bytes: Vec<u8>, w: Writer) -> Read {
    match w {
        Writer::Csv => Read::Text(bytes),
        Writer::Ipc => {
            let r = arrow_ipc::reader::FileReader::try_new(Cursor::new(bytes), None).unwrap();
            Read::Batches(r.collect::<Result<_, _>>().unwrap())
        }
        Writer::Parquet => {
            let b = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(
                bytes::Bytes::from(bytes),
            )
            .unwrap()
            .build()
            .unwrap();
            Read::Batches(b.collect::<Result<_, _>>().unwrap())
        }
    }
}

#[test]
fn chunked_conversion_writes_the_whole_arrays_bytes() {
    let mut compared = 0;
    for (name, file) in fixtures() {
        let whole = read_bytes(&file, &opts()).unwrap();
        if whole.shape().len() > 2 {
            continue;
        }
        for layout in [Layout::Columns, Layout::RowLists, Layout::NonZeros] {
            for w in [Writer::Csv, Writer::Ipc, Writer::Parquet] {
                for k in [1, 2, 5] {
                    let ds = Dataset::new(whole.clone(), layout);
                    let want = ds.and_then(|ds| write(&ds, w, k));
                    let reader = RowReader::new(Cursor::new(&file), &opts()).unwrap();
                    let header = reader.header().clone();
                    let seek = ChunkedDataset::new(&header, layout, reader.into_chunks(k))
                        .and_then(|ds| write(ds, w, k));
                    match (&want, &seek) {
                        (Ok(a), Ok(b)) => assert!(
                            read_back(a.clone(), w) == read_back(b.clone(), w),
                            "{name} {layout:?} {w:?} by {k}"
                        ),
                        (Err(a), Err(b)) => assert_eq!(a.kind(), b.kind(), "{name}"),
                        _ => panic!("{name} {layout:?} {w:?}: {want:?} vs {seek:?}"),
                    }
                    let chunks = RowChunks::new(&file[..], k, &opts()).unwrap();
                    let stream =
                        ChunkedDataset::new(&header, layout, chunks).and_then(|ds| write(ds, w, k));
                    match (&want, &stream) {
                        (Ok(a), Ok(b)) => assert!(
                            read_back(a.clone(), w) == read_back(b.clone(), w),
                            "{name} {layout:?} {w:?} by {k}: stream"
                        ),
                        (Err(a), Err(b)) => assert_eq!(a.kind(), b.kind(), "{name}"),
                        _ => panic!("{name} {layout:?} {w:?}: {want:?} vs {stream:?}"),
                    }
                    compared += usize::from(want.is_ok());
                }
            }
        }
    }
    assert!(compared > 2000, "{compared}");
}

#[test]
fn chunks_must_match_and_cover_the_array() {
    let a = npyguard::NpyArray::from_vec((0..12i32).collect(), vec![6, 2])
        .unwrap()
        .to_array();
    let header = a.header().clone();
    let half = npyguard::NpyArray::from_vec((0..6i32).collect(), vec![3, 2])
        .unwrap()
        .to_array();
    // Too few rows.
    let ds = ChunkedDataset::new(&header, Layout::Columns, std::iter::once(Ok(half.clone())));
    let e = write(ds.unwrap(), Writer::Csv, 0).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    // Another trailing shape.
    let other = npyguard::NpyArray::from_vec((0..6i32).collect(), vec![2, 3])
        .unwrap()
        .to_array();
    let ds = ChunkedDataset::new(
        &header,
        Layout::Columns,
        vec![Ok(half), Ok(other)].into_iter(),
    );
    let e = write(ds.unwrap(), Writer::Csv, 0).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    // A chunk's error is the writer's error.
    let bad: Vec<npyguard::Result<Array>> =
        vec![Err(npyguard::Error::new(ErrorKind::Truncated, 99, "more"))];
    let ds = ChunkedDataset::new(&header, Layout::Columns, bad.into_iter());
    let e = write(ds.unwrap(), Writer::Ipc, 0).unwrap_err();
    assert_eq!((e.kind(), e.offset()), (ErrorKind::Truncated, Some(99)));
}
