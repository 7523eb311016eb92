//! `npyguard convert`: re-encode a `.npy` (or an archive member) through the reader and
//! writer, or to a dataset (`--to parquet|arrow|csv`).

use std::path::Path;
use std::process::ExitCode;

use npyguard::{Array, ReadOptions};

use crate::dataset_cli;
use crate::input::{Failure, Input};
use crate::output::Output;
use crate::report::{fail_code, open_or_exit, read_or_exit};

pub fn convert(
    input: &Path,
    output: &Path,
    c_order: bool,
    keep_header: bool,
    member: Option<&str>,
    dataset: &dataset_cli::DatasetArgs,
    opts: &ReadOptions,
) -> Result<ExitCode, Failure> {
    dataset_cli::check(dataset, c_order)?;
    let source = open_or_exit(input)?;
    if member.is_some() && !source.is_npz() {
        return Err(format!("{}: --member applies to .npz input only", input.display()).into());
    }
    // A dataset is written chunk by chunk: memory is one chunk, not the array.
    if dataset.to.is_some() && source.is_npz() {
        return convert_member(input, output, source, member, dataset, opts);
    }
    if dataset.to.is_some() {
        let rows_for = |h: &npyguard::Header| dataset_cli::chunk_rows(h, dataset);
        return match source.row_chunks(opts, rows_for) {
            Ok((header, chunks)) => {
                let source = dataset_cli::Source(header, chunks);
                dataset_cli::convert(source, input, output, dataset)
            }
            Err(e) => fail_code(input, e),
        };
    }
    let array = if source.is_npz() {
        read_member(input, source, member, opts)?
    } else {
        read_or_exit(input, source, opts)?
    };
    // `to_c_order` of a C-order array would copy it for nothing.
    let array = if c_order && array.fortran_order() {
        array.to_c_order()
    } else {
        array
    };
    let (array, version) = if keep_header {
        // The input's format version when the header still fits it, and its order flag.
        let version = array
            .header()
            .version()
            .max(npyguard::write::choose_version(array.header()));
        (array, version)
    } else {
        // np.save(np.load(f)): an array both C- and F-contiguous is flagged C, and the
        // smallest version that holds the header.
        let array = if array.fortran_order() && is_c_contiguous_too(array.shape()) {
            array.to_c_order()
        } else {
            array
        };
        let version = npyguard::write::choose_version(array.header());
        (array, version)
    };
    let mut out = Output::open(output, input)?;
    npyguard::write::to_writer_with_version(out.writer(), &array, version)
        .map_err(|e| crate::output::write_error(output, &e))?;
    out.commit()?;
    Ok(ExitCode::SUCCESS)
}

/// Whether a Fortran-order array of `shape` is C-contiguous too (NumPy's flags): at most
/// one axis longer than 1, or no element at all. `np.save` writes such an array as C order.
fn is_c_contiguous_too(shape: &[usize]) -> bool {
    shape.contains(&0) || shape.iter().filter(|&&d| d > 1).count() <= 1
}

/// `convert --to` of an archive member: streamed through the archive's limits, chunk by chunk.
fn convert_member(
    input: &Path,
    output: &Path,
    source: crate::input::Input,
    member: Option<&str>,
    dataset: &dataset_cli::DatasetArgs,
    opts: &ReadOptions,
) -> Result<ExitCode, Failure> {
    let mut archive = match source.archive(opts) {
        Ok(a) => a,
        Err(e) => return fail_code(input, e),
    };
    let name = member_name(input, &archive, member)?;
    if let Err(e) = archive.check_declared_size(&name) {
        return fail_code(input, e);
    }
    let chunks = match archive.row_chunks(&name, 1) {
        Ok(c) => c,
        Err(e) => return fail_code(input, e),
    };
    let header = chunks.header().clone();
    let chunks = chunks.with_rows_per_chunk(dataset_cli::chunk_rows(&header, dataset));
    let source = dataset_cli::Source(header, Box::new(chunks));
    dataset_cli::convert(source, input, output, dataset)
}

/// The array `convert` writes from an archive: `--member NAME`, or the only array.
fn read_member(
    path: &Path,
    input: Input,
    member: Option<&str>,
    opts: &ReadOptions,
) -> Result<Array, Failure> {
    let fail = |e| crate::report::fail(path, e);
    let mut archive = input.archive(opts).map_err(fail)?;
    let name = member_name(path, &archive, member)?;
    archive.check_declared_size(&name).map_err(fail)?;
    archive.array(&name).map_err(fail)
}

/// The member `--member` names, or the archive's only array (an error otherwise).
fn member_name<R>(
    path: &Path,
    archive: &npyguard::npz::NpzArchive<R>,
    member: Option<&str>,
) -> Result<String, String>
where
    R: std::io::Read + std::io::Seek,
{
    let names: Vec<String> = archive.array_names().map(str::to_string).collect();
    match (member, names.as_slice()) {
        (Some(m), _) => Ok(m.to_string()),
        (None, [only]) => Ok(only.clone()),
        (None, _) => Err(format!(
            "{}: an archive of {} arrays; choose one with --member NAME (arrays: {})",
            path.display(),
            names.len(),
            names.join(", ")
        )),
    }
}
