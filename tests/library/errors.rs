//! Errors say who caused them and where: a category per kind, an offset only when the
//! error concerns a position of an input, and OS failures on a path in the OS's words.

use npyguard::{read_bytes, read_path, write, Category, ErrorKind, NpyArray, ReadOptions};

#[test]
fn a_missing_file_is_an_os_error_without_an_offset() {
    let path = std::env::temp_dir().join(format!(
        "npyguard-errors-{}-missing.npy",
        std::process::id()
    ));
    let e = read_path(&path, &ReadOptions::default()).unwrap_err();
    assert_eq!(
        (e.kind(), e.category(), e.offset()),
        (ErrorKind::Io, Category::Io, None)
    );
    let text = e.to_string();
    assert!(
        text.starts_with(&format!("cannot open {}: ", path.display())),
        "{text}"
    );
    assert!(!text.contains("at byte"), "{text}");
}

#[test]
fn errors_in_the_input_have_its_offset_and_the_format_category() {
    let file = write::to_vec(
        &NpyArray::from_vec(vec![1u32, 2], vec![2])
            .unwrap()
            .to_array(),
    )
    .unwrap();
    let e = read_bytes(&file[..file.len() - 1], &ReadOptions::default()).unwrap_err();
    assert_eq!(
        (e.kind(), e.category()),
        (ErrorKind::Truncated, Category::Format)
    );
    // At the end of the input, where the missing byte would be.
    assert_eq!(e.offset(), Some(file.len() as u64 - 1));
    assert!(e.to_string().starts_with("truncated at byte "), "{e}");
}

#[test]
fn a_callers_mistake_is_usage_and_has_no_position() {
    let file = write::to_vec(
        &NpyArray::from_vec(vec![1u32, 2], vec![2])
            .unwrap()
            .to_array(),
    )
    .unwrap();
    let e = NpyArray::<f64>::read_bytes(&file, &ReadOptions::default()).unwrap_err();
    assert_eq!(
        (e.kind(), e.category(), e.offset()),
        (ErrorKind::TypeMismatch, Category::Usage, None)
    );
    assert!(e.to_string().starts_with("type-mismatch: expected "), "{e}");
}

#[test]
fn limits_are_their_own_category() {
    let file = write::to_vec(
        &NpyArray::from_vec(vec![0u8; 100], vec![100])
            .unwrap()
            .to_array(),
    )
    .unwrap();
    let small = ReadOptions::default().with_max_file_bytes(Some(10));
    let e = read_bytes(&file, &small).unwrap_err();
    assert_eq!(
        (e.kind(), e.category()),
        (ErrorKind::FileTooLarge, Category::Limit)
    );
    for kind in [
        ErrorKind::HeaderTooLong,
        ErrorKind::NestingTooDeep,
        ErrorKind::TooManyMembers,
        ErrorKind::TotalTooLarge,
        ErrorKind::CompressionRatio,
        ErrorKind::Unbacked,
        ErrorKind::HeaderFull,
    ] {
        assert_eq!(kind.category(), Category::Limit, "{kind}");
    }
    assert_eq!(ErrorKind::Internal.category(), Category::Internal);
    assert_eq!(ErrorKind::MemberNotFound.category(), Category::Usage);
}
