//! An archive of one member with every zip field under the test's control (the hostile
//! archives of tests/library/npz.rs and tests/cli/hostile_layers.rs).

/// One member and the fields its two headers declare.
pub struct OneMember<'a> {
    /// The member's name.
    pub name: &'a [u8],
    /// 0 stored, 8 deflated.
    pub method: u16,
    /// The CRC-32 both headers declare.
    pub crc: u32,
    /// The uncompressed size both headers declare.
    pub size: u32,
    /// The member's bytes as stored (its compressed size is their length).
    pub data: &'a [u8],
    /// The local header offset the central entry declares (`u32::MAX`: in `central_extra`).
    pub header_offset: u32,
    /// The central entry's extra fields (a zip64 field, say).
    pub central_extra: &'a [u8],
}

fn le(out: &mut Vec<u8>, fields: &[u64], widths: &[usize]) {
    for (v, w) in fields.iter().zip(widths) {
        out.extend_from_slice(&v.to_le_bytes()[..*w]);
    }
}

/// The archive: local header and data, one central entry, the end record.
pub fn zip_one(m: &OneMember) -> Vec<u8> {
    let csize = u64::try_from(m.data.len()).unwrap();
    let (name_len, extra_len) = (m.name.len() as u64, m.central_extra.len() as u64);
    let (crc, size, method) = (u64::from(m.crc), u64::from(m.size), u64::from(m.method));
    let mut local = Vec::new();
    le(
        &mut local,
        &[
            0x0403_4b50,
            20,
            0,
            method,
            0,
            0,
            crc,
            csize,
            size,
            name_len,
            0,
        ],
        &[4, 2, 2, 2, 2, 2, 4, 4, 4, 2, 2],
    );
    local.extend_from_slice(m.name);
    local.extend_from_slice(m.data);
    let mut central = Vec::new();
    le(
        &mut central,
        &[
            0x0201_4b50,
            20,
            20,
            0,
            method,
            0,
            0,
            crc,
            csize,
            size,
            name_len,
            extra_len,
            0,
            0,
            0,
            0,
            u64::from(m.header_offset),
        ],
        &[4, 2, 2, 2, 2, 2, 2, 4, 4, 4, 2, 2, 2, 2, 2, 4, 4],
    );
    central.extend_from_slice(m.name);
    central.extend_from_slice(m.central_extra);
    let (cd_size, cd_offset) = (central.len() as u64, local.len() as u64);
    let mut zip = local;
    zip.extend(central);
    le(
        &mut zip,
        &[0x0605_4b50, 0, 0, 1, 1, cd_size, cd_offset, 0],
        &[4, 2, 2, 2, 2, 4, 4, 2],
    );
    zip
}
