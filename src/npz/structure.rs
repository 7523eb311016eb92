//! npyguard's reading of the zip structure of an `.npz`: end records, central directory,
//! local headers, data descriptors. Where zip readers differ, this reads what CPython's
//! `zipfile` (NumPy's reader) reads, and refuses what it would read differently or not at all.
//!
//! The whole file must be one archive and nothing else: it starts with the first local
//! header (or, empty, with the end record), the members' local headers, data and data
//! descriptors follow one another without a gap up to the central directory, the central
//! directory is followed by the end records, and the end record's comment ends the file.

use std::io::{self, BufReader, Read, Seek, SeekFrom};
use std::num::NonZeroU64;

use crate::error::{Error, ErrorKind, Result};
use crate::npz::member::{Compression, Member};

pub(super) const SIG_LOCAL: [u8; 4] = *b"PK\x03\x04";
pub(super) const SIG_END: [u8; 4] = *b"PK\x05\x06";
const SIG_CENTRAL: [u8; 4] = *b"PK\x01\x02";
const SIG_END64: [u8; 4] = *b"PK\x06\x06";
const SIG_LOCATOR64: [u8; 4] = *b"PK\x06\x07";
const SIG_DESCRIPTOR: [u8; 4] = *b"PK\x07\x08";
const END_LEN: usize = 22;
const LOCATOR64_LEN: usize = 20;
const END64_LEN: usize = 56;
/// The size field of a zip64 end record without extensible data (56 - 12).
const END64_SIZE_FIELD: u64 = 44;
const CENTRAL_LEN: usize = 46;
/// [`CENTRAL_LEN`] as a divisor.
const CENTRAL_LEN_NONZERO: NonZeroU64 = NonZeroU64::MIN.saturating_add(CENTRAL_LEN as u64 - 1);
const LOCAL_LEN: usize = 30;
/// The end record with the longest comment: how far from the end of the file its search goes.
const MAX_TAIL: usize = END_LEN + 0xFFFF;
const SAT32: u32 = 0xFFFF_FFFF;
const SAT16: u16 = 0xFFFF;
const FLAG_ENCRYPTED: u16 = 0x0001;
const FLAG_DESCRIPTOR: u16 = 0x0008;
/// "Compressed patched data": Python's zipfile refuses to open such a member.
const FLAG_PATCHED: u16 = 0x0020;
const FLAG_STRONG_ENCRYPTION: u16 = 0x0040;
const FLAG_UTF8: u16 = 0x0800;
/// Flags that must be the same in the local header and the central directory.
const FLAGS_COMPARED: u16 =
    FLAG_ENCRYPTED | FLAG_DESCRIPTOR | FLAG_PATCHED | FLAG_STRONG_ENCRYPTION | FLAG_UTF8;
const METHOD_STORED: u16 = 0;
const METHOD_DEFLATED: u16 = 8;
const METHOD_AES: u16 = 99;
const ZIP64_EXTRA: u16 = 0x0001;
/// The highest "version needed to extract" Python's zipfile opens (`MAX_EXTRACT_VERSION`, 6.3).
const MAX_EXTRACT_VERSION: u8 = 63;

/// Code page 437 above ASCII, as Python decodes it (`bytes(range(128, 256)).decode('cp437')`).
const CP437_HIGH: &str = "ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u{a0}";

/// What the end record(s) say.
#[derive(Debug)]
pub(super) struct EndRecord {
    /// Offset of the classic end record.
    pub(super) offset: u64,
    pub(super) entries: u64,
    pub(super) cd_offset: u64,
    pub(super) cd_size: u64,
    /// Where the central directory must end: the zip64 end record, or the classic one.
    cd_end: u64,
}

/// One central-directory entry, zip64 fields resolved.
#[derive(Debug)]
pub(super) struct Central {
    at: u64,
    raw_name: Vec<u8>,
    flags: u16,
    method: u16,
    extract_version: u8,
    crc32: u32,
    compressed_size: u64,
    size: u64,
    header_start: u64,
}

pub(super) fn format_err(offset: u64, expected: impl Into<String>) -> Error {
    Error::new(ErrorKind::ZipFormat, offset, expected)
}

/// A fixed-size zip record (or its fixed part), read whole. Its fields are read at constant
/// offsets that the compiler checks against the record's size, so no field read can run
/// short: a record too short for its fields is refused where its bytes are read.
struct Fixed<const N: usize>([u8; N]);

impl<const N: usize> Fixed<N> {
    /// Reads the record at `offset` (where the reader is); running out is a format error.
    fn read<R: Read>(r: &mut R, offset: u64, what: &str) -> Result<Fixed<N>> {
        let mut b = [0u8; N];
        read_exact(r, &mut b, offset, what)?;
        Ok(Fixed(b))
    }

    /// Reads the record at `offset`, seeking there first.
    fn read_at<R: Read + Seek>(r: &mut R, offset: u64, what: &str) -> Result<Fixed<N>> {
        seek_to(r, offset, what)?;
        Fixed::read(r, offset, what)
    }

    /// The `W` bytes at `AT` (a build error when they are not inside the record).
    fn bytes<const AT: usize, const W: usize>(&self) -> [u8; W] {
        const {
            assert!(
                matches!(AT.checked_add(W), Some(end) if end <= N),
                "a field inside its record"
            );
        }
        let mut out = [0u8; W];
        for (o, b) in out.iter_mut().zip(self.0.iter().skip(AT)) {
            *o = *b;
        }
        out
    }

    /// The signature, the first four bytes of every record.
    fn signature(&self) -> [u8; 4] {
        self.bytes::<0, 4>()
    }

    fn u8<const AT: usize>(&self) -> u8 {
        u8::from_le_bytes(self.bytes::<AT, 1>())
    }

    fn u16<const AT: usize>(&self) -> u16 {
        u16::from_le_bytes(self.bytes::<AT, 2>())
    }

    fn u32<const AT: usize>(&self) -> u32 {
        u32::from_le_bytes(self.bytes::<AT, 4>())
    }

    fn u64<const AT: usize>(&self) -> u64 {
        u64::from_le_bytes(self.bytes::<AT, 8>())
    }
}

/// `a + b`, or a format error at `offset` when it overflows.
pub(super) fn add(a: u64, b: u64, offset: u64) -> Result<u64> {
    a.checked_add(b)
        .ok_or_else(|| format_err(offset, "offsets and sizes that fit in 64 bits"))
}

/// Reads exactly `buf.len()` bytes at `offset`; running out is a format error saying `what`.
pub(super) fn read_at<R: Read + Seek>(
    r: &mut R,
    offset: u64,
    buf: &mut [u8],
    what: &str,
) -> Result<()> {
    seek_to(r, offset, what)?;
    read_exact(r, buf, offset, what)
}

/// Seeks to `offset`, which the archive's own bytes gave: an offset no file can have (past
/// 2^63 - 1, where the OS refuses the seek with EINVAL) is the archive's format error, not
/// an I/O error; an offset past the end is found by the read that follows.
pub(super) fn seek_to<R: Seek>(r: &mut R, offset: u64, what: &str) -> Result<()> {
    if i64::try_from(offset).is_err() {
        return Err(
            format_err(offset, format!("{what} at an offset a file can have"))
                .found("an offset past 2**63 - 1"),
        );
    }
    r.seek(SeekFrom::Start(offset))
        .map(|_| ())
        .map_err(|e| Error::io(offset, e))
}

fn read_exact<R: Read>(r: &mut R, buf: &mut [u8], offset: u64, what: &str) -> Result<()> {
    r.read_exact(buf).map_err(|e| {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            format_err(offset, what.to_string()).found("end of data")
        } else {
            Error::io(offset, e)
        }
    })
}

fn read_vec<R: Read>(r: &mut R, len: u16, offset: u64, what: &str) -> Result<Vec<u8>> {
    let mut v = vec![0u8; usize::from(len)];
    read_exact(r, &mut v, offset, what)?;
    Ok(v)
}

/// Finds the end records (see [`classic_end`] and [`zip64_end`]) and checks that the central
/// directory ends right where they begin.
pub(super) fn find_end<R: Read + Seek>(r: &mut R, len: u64) -> Result<EndRecord> {
    let mut end = classic_end(r, len)?;
    zip64_end(r, &mut end)?;
    if add(end.cd_offset, end.cd_size, end.offset)? != end.cd_end {
        return Err(format_err(
            end.offset,
            format!("a central directory ending at byte {}, where the end records begin (no bytes before the archive)", end.cd_end),
        )
        .found(format!("{} bytes at byte {}", end.cd_size, end.cd_offset)));
    }
    Ok(end)
}

/// The classic end record: the last `PK\x05\x06` in the file's last 65 557 bytes (where
/// Python's zipfile looks), whose comment must end the file exactly.
fn classic_end<R: Read + Seek>(r: &mut R, len: u64) -> Result<EndRecord> {
    if len < END_LEN as u64 {
        return Err(
            format_err(0, "a zip archive (at least the 22-byte end record)")
                .found(format!("{len} bytes")),
        );
    }
    let tail_len = usize::try_from(len).map_or(MAX_TAIL, |l| l.min(MAX_TAIL));
    let tail_start = len.saturating_sub(tail_len as u64);
    let mut tail = vec![0u8; tail_len];
    read_at(r, tail_start, &mut tail, "the end of the archive")?;
    let Some((pos, rest)) = last_signature(&tail, SIG_END) else {
        return Err(format_err(
            len,
            "an end-of-central-directory record (PK\\x05\\x06) in the last 65 557 bytes",
        )
        .found("none"));
    };
    let offset = tail_start.saturating_add(pos as u64);
    let whole = rest.first_chunk::<END_LEN>().map(|b| Fixed(*b));
    let comment = whole.as_ref().map(|rec| u64::from(rec.u16::<20>()));
    let ends_file = |c: u64| offset.saturating_add(END_LEN as u64).saturating_add(c) == len;
    let Some(rec) = whole.filter(|_| comment.is_some_and(ends_file)) else {
        let declared = comment.map_or_else(String::new, |c| format!(" with a {c}-byte comment"));
        return Err(format_err(
            offset,
            "an end record whose comment ends the file (the last PK\\x05\\x06)",
        )
        .found(format!(
            "a record of {} bytes before the end{declared}",
            rest.len()
        )));
    };
    let (disk, cd_disk, disk_entries, entries) = (
        rec.u16::<4>(),
        rec.u16::<6>(),
        rec.u16::<8>(),
        rec.u16::<10>(),
    );
    if disk != 0 || cd_disk != 0 || disk_entries != entries {
        return Err(format_err(offset, "a single-disk archive")
            .found(format!("disk {disk}, directory on disk {cd_disk}")));
    }
    Ok(EndRecord {
        offset,
        entries: u64::from(entries),
        cd_offset: u64::from(rec.u32::<16>()),
        cd_size: u64::from(rec.u32::<12>()),
        cd_end: offset,
    })
}

/// The last occurrence of `sig` in `bytes`: its position and the bytes from there on.
fn last_signature(bytes: &[u8], sig: [u8; 4]) -> Option<(usize, &[u8])> {
    (0..bytes.len()).rev().find_map(|pos| {
        bytes
            .get(pos..)
            .filter(|rest| rest.starts_with(&sig))
            .map(|rest| (pos, rest))
    })
}

/// A zip64 locator right before the end record: Python's zipfile then reads the 56 bytes
/// before the locator as the zip64 end record, whatever offset the locator holds. So the
/// locator must point exactly there and the record must have no extensible data: then
/// every reader finds the same record.
fn zip64_end<R: Read + Seek>(r: &mut R, end: &mut EndRecord) -> Result<()> {
    let Some(loc_at) = end.offset.checked_sub(LOCATOR64_LEN as u64) else {
        return Ok(());
    };
    let loc = Fixed::<LOCATOR64_LEN>::read_at(r, loc_at, "a zip64 end-record locator")?;
    if loc.signature() != SIG_LOCATOR64 {
        return Ok(());
    }
    let (e64_disk, e64_at, disks) = (loc.u32::<4>(), loc.u64::<8>(), loc.u32::<16>());
    if e64_disk != 0 || disks > 1 {
        return Err(format_err(loc_at, "a single-disk archive (zip64 locator)")
            .found(format!("{disks} disks")));
    }
    let expected_at = loc_at.checked_sub(END64_LEN as u64).ok_or_else(|| {
        format_err(loc_at, "a zip64 end record before its locator").found("the start of the file")
    })?;
    let e64 = Fixed::<END64_LEN>::read_at(r, expected_at, "a zip64 end record")?;
    if e64.signature() != SIG_END64 || e64_at != expected_at || e64.u64::<4>() != END64_SIZE_FIELD {
        return Err(format_err(
            expected_at,
            "a 56-byte zip64 end record (PK\\x06\\x06, no extensible data) right before its locator, where the locator points",
        )
        .found(format!(
            "{:02x?} of size field {} there, the locator pointing at byte {e64_at}",
            e64.signature(),
            e64.u64::<4>()
        )));
    }
    let (d, cd_d, n_d, n, size, at) = (
        e64.u32::<16>(),
        e64.u32::<20>(),
        e64.u64::<24>(),
        e64.u64::<32>(),
        e64.u64::<40>(),
        e64.u64::<48>(),
    );
    if d != 0 || cd_d != 0 || n_d != n {
        return Err(
            format_err(expected_at, "a single-disk archive (zip64 end record)")
                .found(format!("disk {d}")),
        );
    }
    let agree = (end.entries == u64::from(SAT16) || end.entries == n)
        && (end.cd_size == u64::from(SAT32) || end.cd_size == size)
        && (end.cd_offset == u64::from(SAT32) || end.cd_offset == at);
    if !agree {
        return Err(format_err(
            end.offset,
            "an end record agreeing with the zip64 end record",
        )
        .found(format!(
            "{} entries, {} bytes at {} where zip64 says {n}, {size} at {at}",
            end.entries, end.cd_size, end.cd_offset
        )));
    }
    end.entries = n;
    end.cd_size = size;
    end.cd_offset = at;
    end.cd_end = expected_at;
    Ok(())
}

/// Reads the `end.entries` central-directory entries, which must fill the directory exactly.
pub(super) fn read_central<R: Read + Seek>(r: &mut R, end: &EndRecord) -> Result<Vec<Central>> {
    seek_to(r, end.cd_offset, "the central directory")?;
    let mut br = BufReader::new((&mut *r).take(end.cd_size));
    // Every entry takes at least 46 bytes, so the directory's size bounds the count.
    let most = (end.cd_size / CENTRAL_LEN_NONZERO).min(end.entries);
    let mut out = Vec::with_capacity(usize::try_from(most).unwrap_or(0));
    let mut at = end.cd_offset;
    for _ in 0..end.entries {
        let (entry, len) = central_entry(&mut br, at)?;
        out.push(entry);
        at = at.saturating_add(len);
    }
    let cd_end = end.cd_offset.saturating_add(end.cd_size);
    if at != cd_end {
        return Err(format_err(
            at,
            format!(
                "{} entries filling the central directory to byte {cd_end}",
                end.entries
            ),
        )
        .found(format!("entries ending at byte {at}")));
    }
    Ok(out)
}

/// One central-directory entry at `at`, and its length.
fn central_entry<R: Read>(br: &mut R, at: u64) -> Result<(Central, u64)> {
    let within = "a central-directory entry within the directory's declared size";
    let fixed = Fixed::<CENTRAL_LEN>::read(br, at, within)?;
    if fixed.signature() != SIG_CENTRAL {
        return Err(format_err(at, "a central-directory entry (PK\\x01\\x02)")
            .found(format!("{:02x?}", fixed.signature())));
    }
    let (name_len, extra_len, comment_len) =
        (fixed.u16::<28>(), fixed.u16::<30>(), fixed.u16::<32>());
    let raw_name = read_vec(br, name_len, at, within)?;
    let extra = read_vec(br, extra_len, at, within)?;
    read_vec(br, comment_len, at, within)?;
    let fields = extra_fields(&extra, at)?;
    let mut z64 = zip64_field(&fields, at)?.unwrap_or_default();
    // Per APPNOTE 4.5.3 (and Python's zipfile): only saturated values are in the zip64 field, in this order.
    let size = widen32(fixed.u32::<24>(), &mut z64, at, "uncompressed size")?;
    let compressed_size = widen32(fixed.u32::<20>(), &mut z64, at, "compressed size")?;
    let header_start = widen32(fixed.u32::<42>(), &mut z64, at, "local header offset")?;
    let disk = fixed.u16::<34>();
    let disk = if disk == SAT16 {
        let Some((d, _)) = z64.split_first_chunk::<4>() else {
            return Err(
                format_err(at, "a zip64 extra field holding the disk number").found("none"),
            );
        };
        u32::from_le_bytes(*d)
    } else {
        u32::from(disk)
    };
    if disk != 0 {
        return Err(format_err(at, "a member on disk 0 (single-disk archive)")
            .found(format!("disk {disk}")));
    }
    let entry = Central {
        at,
        raw_name,
        flags: fixed.u16::<8>(),
        method: fixed.u16::<10>(),
        extract_version: fixed.u8::<6>(),
        crc32: fixed.u32::<16>(),
        compressed_size,
        size,
        header_start,
    };
    let len = (CENTRAL_LEN as u64)
        .saturating_add(u64::from(name_len))
        .saturating_add(u64::from(extra_len))
        .saturating_add(u64::from(comment_len));
    Ok((entry, len))
}

/// Decodes a member name as Python's zipfile does (UTF-8 if flagged, else code page 437).
fn decode_name(raw: &[u8], flags: u16, at: u64) -> Result<String> {
    let name = if flags & FLAG_UTF8 != 0 {
        String::from_utf8(raw.to_vec()).map_err(|_| {
            format_err(at, "a UTF-8 member name (flag bit 11 is set)")
                .found(format!("{:02x?}", raw))
        })?
    } else {
        raw.iter()
            .map(|&b| {
                if b.is_ascii() {
                    char::from(b)
                } else {
                    CP437_HIGH
                        .chars()
                        .nth(usize::from(b).saturating_sub(0x80))
                        .unwrap_or(char::REPLACEMENT_CHARACTER)
                }
            })
            .collect()
    };
    if name.contains('\0') {
        // Python's zipfile cuts names at the first NUL: two readers would see two names.
        return Err(format_err(at, "a member name without NUL").found(format!("{name:?}")));
    }
    Ok(name)
}

/// The members the central directory describes, each checked on its own (name, flags,
/// method, version, local header), then all together: they must tile the bytes before the
/// central directory exactly.
pub(super) fn check_members<R: Read + Seek>(
    r: &mut R,
    central: &[Central],
    end: &EndRecord,
) -> Result<Vec<Member>> {
    let mut members = Vec::with_capacity(central.len());
    for c in central {
        let name = decode_name(&c.raw_name, c.flags, c.at)?;
        let compression = check_entry(c).map_err(|e| e.in_member(&name))?;
        if c.header_start >= end.cd_offset {
            // Checked before any seek: an offset past the end of the file system's largest
            // file is an I/O error (EINVAL) to the seek, but a malformed archive here.
            return Err(format_err(
                c.at,
                format!(
                    "a local header offset before the central directory (byte {})",
                    end.cd_offset
                ),
            )
            .found(format!("offset {}", c.header_start))
            .in_member(&name));
        }
        let data_start = check_local(r, c).map_err(|e| e.in_member(&name))?;
        members.push(Member {
            name,
            compression,
            compressed_size: c.compressed_size,
            size: c.size,
            crc32: c.crc32,
            header_start: c.header_start,
            data_start,
        });
    }
    check_tiling(r, &members, central, end)?;
    Ok(members)
}

/// What a central entry alone must satisfy: no encryption, no patched data, a version
/// Python's zipfile opens, stored or deflated, two equal sizes when stored.
fn check_entry(c: &Central) -> Result<Compression> {
    if c.flags & (FLAG_ENCRYPTED | FLAG_STRONG_ENCRYPTION) != 0 || c.method == METHOD_AES {
        return Err(
            Error::new(ErrorKind::EncryptedMember, c.at, "an unencrypted member")
                .found(format!("flags {:#06x}, method {}", c.flags, c.method)),
        );
    }
    if c.flags & FLAG_PATCHED != 0 {
        return Err(format_err(
            c.at,
            "a member without compressed patched data (flag bit 5; Python's zipfile refuses it)",
        )
        .found(format!("flags {:#06x}", c.flags)));
    }
    if c.extract_version > MAX_EXTRACT_VERSION {
        return Err(format_err(c.at, format!("a member needing zip version at most {}.{} to extract (Python's zipfile refuses newer)", MAX_EXTRACT_VERSION / 10, MAX_EXTRACT_VERSION % 10))
            .found(format!("version {}.{}", c.extract_version / 10, c.extract_version % 10)));
    }
    let compression = match c.method {
        METHOD_STORED => Compression::Stored,
        METHOD_DEFLATED => Compression::Deflated,
        m => {
            return Err(Error::new(
                ErrorKind::UnsupportedCompression,
                c.at,
                "a stored (0) or deflated (8) member",
            )
            .found(format!("method {m}")))
        }
    };
    if compression == Compression::Stored && c.compressed_size != c.size {
        return Err(Error::new(
            ErrorKind::SizeMismatch,
            c.at,
            "a stored member whose two sizes agree",
        )
        .found(format!(
            "{} compressed, {} uncompressed",
            c.compressed_size, c.size
        )));
    }
    Ok(compression)
}

/// Reads a member's local header, checks it against the central entry and returns where
/// the member's data starts.
fn check_local<R: Read + Seek>(r: &mut R, c: &Central) -> Result<u64> {
    let at = c.header_start;
    let fixed = Fixed::<LOCAL_LEN>::read_at(r, at, "a local header")?;
    if fixed.signature() != SIG_LOCAL {
        return Err(format_err(
            at,
            "a local header (PK\\x03\\x04) where the central directory points",
        )
        .found(format!("{:02x?}", fixed.signature())));
    }
    let (flags, method, crc32) = (fixed.u16::<6>(), fixed.u16::<8>(), fixed.u32::<14>());
    let (name_len, extra_len) = (fixed.u16::<26>(), fixed.u16::<28>());
    let name = read_vec(r, name_len, at, "a local header's name")?;
    let extra = read_vec(r, extra_len, at, "a local header's extra fields")?;
    let mismatch = |what: &str, found: String| {
        Error::new(
            ErrorKind::ZipHeaderMismatch,
            at,
            format!("a local header agreeing with the central directory ({what})"),
        )
        .found(found)
    };
    if name != c.raw_name {
        return Err(mismatch(
            "name",
            format!("local name {:?}", String::from_utf8_lossy(&name)),
        ));
    }
    if method != c.method {
        return Err(mismatch(
            "compression method",
            format!(
                "method {method} where the central directory has {}",
                c.method
            ),
        ));
    }
    if (flags ^ c.flags) & FLAGS_COMPARED != 0 {
        return Err(mismatch(
            "flags",
            format!(
                "flags {flags:#06x} where the central directory has {:#06x}",
                c.flags
            ),
        ));
    }
    if flags & FLAG_DESCRIPTOR == 0 {
        let fields = extra_fields(&extra, at)?;
        let mut z64 = zip64_field(&fields, at)?.unwrap_or_default();
        let size = widen32(fixed.u32::<22>(), &mut z64, at, "uncompressed size")?;
        let compressed = widen32(fixed.u32::<18>(), &mut z64, at, "compressed size")?;
        if (crc32, compressed, size) != (c.crc32, c.compressed_size, c.size) {
            return Err(mismatch(
                "CRC and sizes",
                format!(
                    "CRC {crc32:08x}, {compressed} compressed, {size} uncompressed where the central directory has {:08x}, {}, {}",
                    c.crc32, c.compressed_size, c.size
                ),
            ));
        }
    }
    let var = u64::from(name_len).saturating_add(u64::from(extra_len));
    add(add(at, LOCAL_LEN as u64, at)?, var, at)
}

/// The members, in file order, must cover the bytes before the central directory exactly:
/// the first local header at byte 0, each member's data followed by its data descriptor
/// (when it has one) and then the next local header, the last ending where the directory
/// starts. No byte is hidden in a gap, and none is shared (the "overlapping zip bomb").
fn check_tiling<R: Read + Seek>(
    r: &mut R,
    members: &[Member],
    central: &[Central],
    end: &EndRecord,
) -> Result<()> {
    let mut order: Vec<(&Member, &Central)> = members.iter().zip(central).collect();
    order.sort_unstable_by_key(|(m, _)| m.header_start);
    let nexts = order
        .iter()
        .skip(1)
        .map(|(m, _)| m.header_start)
        .chain(std::iter::once(end.cd_offset));
    let mut expected = 0u64;
    for ((m, c), next) in order.iter().zip(nexts) {
        if m.header_start != expected {
            return Err(tiling_error(expected, m.header_start).in_member(&m.name));
        }
        let data_end = add(m.data_start, m.compressed_size, m.header_start)?;
        expected = data_end;
        if c.flags & FLAG_DESCRIPTOR != 0 && next >= data_end {
            check_descriptor(r, c, data_end, next).map_err(|e| e.in_member(&m.name))?;
            expected = next;
        }
    }
    if expected != end.cd_offset {
        return Err(tiling_error(expected, end.cd_offset));
    }
    Ok(())
}

fn tiling_error(expected: u64, found: u64) -> Error {
    format_err(
        expected.min(found),
        format!("the next local header or the central directory at byte {expected} (members follow one another without gaps or overlaps from byte 0)"),
    )
    .found(format!("the next structure at byte {found}"))
}

/// The bytes `at..next` after a member's data must be a data descriptor repeating its CRC
/// and sizes: 12 or 20 bytes (32-bit or zip64 sizes), or 16 or 24 with the `PK\x07\x08`
/// signature first.
fn check_descriptor<R: Read + Seek>(r: &mut R, c: &Central, at: u64, next: u64) -> Result<()> {
    let gap = next.saturating_sub(at);
    let (signed, wide) = match gap {
        12 => (false, false),
        16 => (true, false),
        20 => (false, true),
        24 => (true, true),
        _ => {
            return Err(descriptor_error(
                c,
                at,
                &format!("{gap} bytes before the next structure"),
            ))
        }
    };
    let what = "a data descriptor";
    seek_to(r, at, what)?;
    if signed {
        let sig = Fixed::<4>::read(r, at, what)?;
        if sig.signature() != SIG_DESCRIPTOR {
            return Err(descriptor_error(c, at, &format!("{:02x?}", sig.0)));
        }
    }
    let (crc32, sizes, body) = if wide {
        let b = Fixed::<20>::read(r, at, what)?;
        (b.u32::<0>(), (b.u64::<4>(), b.u64::<12>()), b.0.to_vec())
    } else {
        let b = Fixed::<12>::read(r, at, what)?;
        let sizes = (u64::from(b.u32::<4>()), u64::from(b.u32::<8>()));
        (b.u32::<0>(), sizes, b.0.to_vec())
    };
    if crc32 != c.crc32 || sizes != (c.compressed_size, c.size) {
        return Err(descriptor_error(c, at, &format!("{body:02x?}")));
    }
    Ok(())
}

fn descriptor_error(c: &Central, at: u64, found: &str) -> Error {
    format_err(at, format!(
        "a data descriptor repeating the member's CRC {:08x} and sizes ({} compressed, {} uncompressed)",
        c.crc32, c.compressed_size, c.size
    ))
    .found(found.to_string())
}

/// Splits extra fields into `(id, data)`; like Python, up to 3 trailing bytes are ignored.
fn extra_fields(extra: &[u8], offset: u64) -> Result<Vec<(u16, &[u8])>> {
    let mut out = Vec::new();
    let mut rest = extra;
    while let Some((head, after)) = rest.split_first_chunk::<4>() {
        let head = Fixed(*head);
        let (id, len) = (head.u16::<0>(), usize::from(head.u16::<2>()));
        let Some((data, next)) = after.split_at_checked(len) else {
            return Err(
                format_err(offset, "extra fields within their declared length")
                    .found(format!("field {id:#06x}")),
            );
        };
        out.push((id, data));
        rest = next;
    }
    Ok(out)
}

/// The data of the one zip64 extra field, if any.
fn zip64_field<'a>(fields: &[(u16, &'a [u8])], offset: u64) -> Result<Option<&'a [u8]>> {
    let mut found = fields
        .iter()
        .filter(|(id, _)| *id == ZIP64_EXTRA)
        .map(|(_, d)| *d);
    let first = found.next();
    if found.next().is_some() {
        return Err(format_err(offset, "at most one zip64 extra field").found("two"));
    }
    Ok(first)
}

/// Takes the next u64 of a zip64 field for a saturated 32-bit value.
/// A 32-bit size or offset, or, when it is saturated (0xFFFFFFFF), the next value of the
/// zip64 extra field (APPNOTE 4.5.3: only saturated values are there, in order).
fn widen32(value: u32, z64: &mut &[u8], offset: u64, what: &str) -> Result<u64> {
    if value == SAT32 {
        take_u64(z64, offset, what)
    } else {
        Ok(u64::from(value))
    }
}

fn take_u64(data: &mut &[u8], offset: u64, what: &str) -> Result<u64> {
    let Some((v, rest)) = data.split_first_chunk::<8>() else {
        return Err(
            format_err(offset, format!("a zip64 extra field holding the {what}"))
                .found("a short or missing field"),
        );
    };
    *data = rest;
    Ok(u64::from_le_bytes(*v))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    /// An offset the archive gives that no file can have (a local header or the directory
    /// at 2^63 or 2^64 - 1) is the archive's format error: the OS would refuse the seek
    /// with EINVAL, which was reported as an I/O error (CLI exit 2 instead of 1).
    #[test]
    fn offsets_no_file_can_have_are_format_errors() {
        let mut r = Cursor::new(vec![0u8; 16]);
        for at in [1u64 << 63, u64::MAX] {
            let e = seek_to(&mut r, at, "a local header").unwrap_err();
            assert_eq!((e.kind(), e.offset()), (ErrorKind::ZipFormat, Some(at)));
            let mut buf = [0u8; 4];
            let e = read_at(&mut r, at, &mut buf, "a local header").unwrap_err();
            assert_eq!(e.kind(), ErrorKind::ZipFormat);
        }
        assert!(seek_to(&mut r, (1 << 63) - 1, "x").is_ok());
    }

    /// Fields are read little-endian at their offsets; an end record cut short by the end
    /// of the file is refused at its signature with its length, and extra fields are split
    /// at their declared lengths (a field running past the end is refused, up to 3 trailing
    /// bytes are ignored, as Python does).
    #[test]
    fn records_read_their_fields_and_short_ones_are_refused() {
        let rec = Fixed([1u8, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        assert_eq!(rec.signature(), [1, 2, 3, 4]);
        assert_eq!(rec.u8::<9>(), 10);
        assert_eq!(rec.u16::<1>(), 0x0302);
        assert_eq!(rec.u32::<6>(), 0x0a09_0807);
        assert_eq!(rec.u64::<2>(), 0x0a09_0807_0605_0403);

        let mut bytes = vec![0u8; 30];
        bytes[18..22].copy_from_slice(&SIG_END);
        let e = classic_end(&mut Cursor::new(&bytes), 30).unwrap_err();
        assert_eq!((e.kind(), e.offset()), (ErrorKind::ZipFormat, Some(18)));
        assert!(e.to_string().contains("a record of 12 bytes"), "{e}");

        let fields = extra_fields(&[1, 0, 2, 0, 7, 8, 9, 0, 0, 0, 5, 6, 7], 0).unwrap();
        assert_eq!(fields, vec![(1u16, &[7u8, 8][..]), (9, &[][..])]);
        let e = extra_fields(&[1, 0, 3, 0, 7, 8], 40).unwrap_err();
        assert_eq!((e.kind(), e.offset()), (ErrorKind::ZipFormat, Some(40)));
    }
}
