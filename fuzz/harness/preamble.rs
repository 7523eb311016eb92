//! Target `preamble`: raw bytes → `Header::from_bytes` with small limits.
//!
//! Properties:
//! * no panic; an error's offset lies inside the input (or at its end);
//! * `Preamble::parse` never claims more bytes than it was given;
//! * an accepted header ends inside the input, where the preamble says it ends,
//!   and is the header `Preamble::parse` + `Header::parse` give on the same text;
//! * the streaming reader (`read_header` on a cursor) gives the same header or
//!   the same error (kind and offset), also when the stream returns one byte
//!   per read;
//! * a longer header cap accepts whatever a shorter one accepts, with the same header.

use std::io::{Cursor, Read};

use npyguard::{read_header, ErrorKind, Header, Preamble, ReadOptions};

#[path = "common.rs"]
mod common;

/// The small cap used by this target (the default is 64 KiB).
const MAX_HEADER_BYTES: usize = 4096;

/// A reader that returns at most one byte per `read` call.
struct OneByte<R>(R);

impl<R: Read> Read for OneByte<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(1);
        self.0.read(&mut buf[..n])
    }
}

pub fn run(data: &[u8]) {
    let opts = ReadOptions::default().with_max_header_bytes(MAX_HEADER_BYTES);
    let from_bytes = Header::from_bytes(data, &opts);
    let ctx = || format!("input {:02x?}", &data[..data.len().min(128)]);

    if let Err(e) = &from_bytes {
        assert!(
            e.offset().is_some_and(|at| at <= data.len() as u64),
            "error offset {:?} past the end ({} bytes): {e}; {}",
            e.offset(),
            data.len(),
            ctx()
        );
    }
    match Preamble::parse(data) {
        Ok(Some(p)) => {
            assert!(
                p.len() <= data.len(),
                "preamble of {} bytes from {} bytes; {}",
                p.len(),
                data.len(),
                ctx()
            );
            assert_eq!(p.header_offset(), p.len() as u64);
            if let Ok(h) = &from_bytes {
                let end = p.payload_offset();
                assert!(
                    end <= data.len() as u64,
                    "header ends at {end}, past the input; {}",
                    ctx()
                );
                assert_eq!(
                    h.payload_offset(),
                    end,
                    "payload offset differs from the preamble's; {}",
                    ctx()
                );
                assert_eq!(h.version(), p.version);
                let text = &data[p.len()..end as usize];
                let again = Header::parse(p, text, &opts);
                common::assert_same_header(
                    "Header::from_bytes",
                    &from_bytes,
                    "Header::parse",
                    &again,
                );
            }
        }
        Ok(None) => {
            let e = from_bytes
                .as_ref()
                .expect_err("a header from an incomplete preamble");
            assert_eq!(
                e.kind(),
                ErrorKind::Truncated,
                "incomplete preamble refused as {e}; {}",
                ctx()
            );
        }
        Err(pe) => {
            let e = from_bytes
                .as_ref()
                .expect_err("a header despite a bad preamble");
            assert_eq!(
                (e.kind(), e.offset()),
                (pe.kind(), pe.offset()),
                "{e} vs {pe}; {}",
                ctx()
            );
        }
    }

    // The streaming reader, whole and one byte per read.
    let streamed = read_header(Cursor::new(data), &opts);
    common::assert_same_header("Header::from_bytes", &from_bytes, "read_header", &streamed);
    let trickled = read_header(OneByte(Cursor::new(data)), &opts);
    common::assert_same_header(
        "read_header",
        &streamed,
        "read_header (1 byte per read)",
        &trickled,
    );

    // A longer cap accepts whatever the short one accepts.
    if let Ok(h) = &from_bytes {
        let big = Header::from_bytes(data, &ReadOptions::default());
        match big {
            Ok(b) => assert_eq!(&b, h, "the header depends on the cap; {}", ctx()),
            Err(e) => panic!(
                "the default cap refuses ({e}) what the 4096-byte cap accepts; {}",
                ctx()
            ),
        }
    }
}
