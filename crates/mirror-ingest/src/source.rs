//! Where games come from: PGN files (plain, gzip, zstd — recognised by their magic bytes),
//! directories of them, and standard input.

use std::{
    fmt,
    fs::File,
    io::{self, BufRead, BufReader, Read},
    path::{Path, PathBuf},
};

/// One input stream of PGN text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A file.
    File(PathBuf),
    /// Standard input (`-` on the command line).
    Stdin,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::File(p) => write!(f, "{}", p.display()),
            Source::Stdin => f.write_str("<stdin>"),
        }
    }
}

/// A command-line input that does not name readable games.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// The path does not exist or cannot be read.
    #[error("cannot read {path}: {source}")]
    Unreadable {
        /// The path.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// Neither a regular file nor a directory: a FIFO, a socket or a device (reading one
    /// could wait forever, or never end).
    #[error("{0} is not a regular file or a directory (FIFOs, sockets and devices are not read)")]
    NotAFile(PathBuf),
    /// A directory without any `.pgn`, `.pgn.gz` or `.pgn.zst` file.
    #[error("directory {0} has no .pgn, .pgn.gz or .pgn.zst files")]
    EmptyDirectory(PathBuf),
}

fn is_pgn_name(p: &Path) -> bool {
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    name.ends_with(".pgn") || name.ends_with(".pgn.gz") || name.ends_with(".pgn.zst")
}

/// The PGN files below `dir`, in name order. A directory reached twice (a symbolic link
/// to an ancestor or a sibling) is read once.
fn walk(
    dir: &Path,
    seen: &mut std::collections::HashSet<PathBuf>,
    out: &mut Vec<PathBuf>,
) -> Result<(), SourceError> {
    let unreadable = |source| SourceError::Unreadable {
        path: dir.to_path_buf(),
        source,
    };
    if !seen.insert(std::fs::canonicalize(dir).map_err(unreadable)?) {
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(unreadable)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .map_err(unreadable)?;
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, seen, out)?;
        } else if is_pgn_name(&p) {
            out.push(regular(&p)?);
        }
    }
    Ok(())
}

/// `path` if it is a regular file (after links).
fn regular(path: &Path) -> Result<PathBuf, SourceError> {
    let meta = std::fs::metadata(path).map_err(|source| SourceError::Unreadable {
        path: path.to_path_buf(),
        source,
    })?;
    if meta.is_file() {
        Ok(path.to_path_buf())
    } else {
        Err(SourceError::NotAFile(path.to_path_buf()))
    }
}

/// Expands command-line inputs: `-` is stdin, a directory is every PGN file below it (in
/// name order), a file is itself (whatever its name). Fails on the first input that does
/// not exist, before anything is ingested.
pub fn expand(inputs: &[PathBuf]) -> Result<Vec<Source>, SourceError> {
    let mut out = Vec::new();
    for input in inputs {
        if input.as_os_str() == "-" {
            out.push(Source::Stdin);
            continue;
        }
        let meta = std::fs::metadata(input).map_err(|source| SourceError::Unreadable {
            path: input.clone(),
            source,
        })?;
        if meta.is_dir() {
            let mut files = Vec::new();
            walk(input, &mut std::collections::HashSet::new(), &mut files)?;
            if files.is_empty() {
                return Err(SourceError::EmptyDirectory(input.clone()));
            }
            out.extend(files.into_iter().map(Source::File));
        } else {
            out.push(Source::File(regular(input)?));
        }
    }
    Ok(out)
}

/// How many times its own size a compressed file may decompress to (PGN compresses about
/// ten times; a file that expands a hundred times more is a decompression bomb).
pub const MAX_EXPANSION: u64 = 100;

/// What a small compressed file may always decompress to, whatever its size.
pub const MIN_OUTPUT_BOUND: u64 = 16 << 20;

/// Opens a source as a decompressed byte stream. Compression is recognised by magic bytes
/// (gzip `1f 8b`, zstd `28 b5 2f fd`), so names do not matter. A compressed file's output
/// is bounded: past [`MAX_EXPANSION`] times its size (and [`MIN_OUTPUT_BOUND`]) the stream
/// fails with an error that says so (a 61 KB upload once expanded to 5 million games).
pub fn open(source: &Source) -> io::Result<Box<dyn Read + Send>> {
    let (raw, compressed): (Box<dyn Read + Send>, Option<u64>) = match source {
        Source::File(p) => {
            let f = File::open(p)?;
            let len = f.metadata().ok().map(|m| m.len());
            (Box::new(f), len)
        }
        Source::Stdin => (Box::new(io::stdin()), None),
    };
    let mut buf = BufReader::with_capacity(1 << 16, raw);
    let head = buf.fill_buf()?;
    let bound = |inner: Box<dyn Read + Send>| -> Box<dyn Read + Send> {
        match compressed {
            Some(len) => Box::new(Bounded {
                inner,
                left: len.saturating_mul(MAX_EXPANSION).max(MIN_OUTPUT_BOUND),
                compressed: len,
            }),
            None => inner,
        }
    };
    Ok(if head.starts_with(&[0x1f, 0x8b]) {
        bound(Box::new(flate2::bufread::MultiGzDecoder::new(buf)))
    } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        bound(Box::new(zstd::stream::read::Decoder::with_buffer(buf)?))
    } else {
        Box::new(buf)
    })
}

/// A decompressed stream that fails once it has given more than its bound.
struct Bounded {
    inner: Box<dyn Read + Send>,
    left: u64,
    compressed: u64,
}

impl Read for Bounded {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(out)?;
        match self.left.checked_sub(n as u64) {
            Some(left) => {
                self.left = left;
                Ok(n)
            }
            None => Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "it decompresses to more than {} times its {} bytes: refused as a \
                     decompression bomb",
                    MAX_EXPANSION, self.compressed
                ),
            )),
        }
    }
}

/// Size of a file source in bytes (compressed), when known.
pub fn size(source: &Source) -> Option<u64> {
    match source {
        Source::File(p) => std::fs::metadata(p).ok().map(|m| m.len()),
        Source::Stdin => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A small compressed file that expands past its bound fails with an error that says
    /// so; one that stays within it reads whole.
    #[test]
    fn a_decompression_bomb_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let game = b"[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n";
        let text: Vec<u8> = game
            .iter()
            .copied()
            .cycle()
            .take((MIN_OUTPUT_BOUND as usize) + (4 << 20))
            .collect();
        let bomb = dir.path().join("bomb.pgn.zst");
        std::fs::write(&bomb, zstd::encode_all(text.as_slice(), 3).expect("zstd")).expect("write");
        let size = std::fs::metadata(&bomb).expect("size").len();
        assert!(
            size * MAX_EXPANSION < MIN_OUTPUT_BOUND,
            "a bomb: {size} bytes"
        );
        let mut out = Vec::new();
        let err = open(&Source::File(bomb))
            .expect("open")
            .read_to_end(&mut out)
            .expect_err("refused");
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert!(err.to_string().contains("decompression bomb"), "{err}");
        assert!(out.len() as u64 <= MIN_OUTPUT_BOUND);
        // Within the bound: the whole text.
        let fine = dir.path().join("fine.pgn.zst");
        let small = &text[..1 << 20];
        std::fs::write(&fine, zstd::encode_all(small, 3).expect("zstd")).expect("write");
        let mut all = Vec::new();
        open(&Source::File(fine))
            .expect("open")
            .read_to_end(&mut all)
            .expect("read");
        assert_eq!(all, small);
    }

    #[test]
    fn same_text_from_plain_gzip_and_zstd() {
        let dir = tempfile::tempdir().expect("tempdir");
        let text = b"[Result \"1-0\"]\n\n1. e4 1-0\n";
        let plain = dir.path().join("a.pgn");
        std::fs::write(&plain, text).expect("write");
        let gz = dir.path().join("b.pgn.gz");
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(text).expect("gz");
        std::fs::write(&gz, enc.finish().expect("gz")).expect("write");
        // A zstd file whose name says nothing.
        let zst = dir.path().join("c.bin");
        std::fs::write(&zst, zstd::encode_all(&text[..], 3).expect("zstd")).expect("write");
        for p in [plain, gz, zst] {
            let mut s = String::new();
            open(&Source::File(p))
                .expect("open")
                .read_to_string(&mut s)
                .expect("read");
            assert_eq!(s.as_bytes(), text);
        }
    }

    #[test]
    fn directories_expand_to_pgn_files_in_order() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join("sub")).expect("mkdir");
        for name in ["b.pgn", "a.pgn.zst", "notes.txt", "sub/c.PGN"] {
            std::fs::write(dir.path().join(name), b"").expect("write");
        }
        let got = expand(&[dir.path().to_path_buf()]).expect("expand");
        let names: Vec<String> = got.iter().map(|s| s.to_string()).collect();
        assert_eq!(names.len(), 3, "{names:?}");
        assert!(names[0].ends_with("a.pgn.zst") && names[2].ends_with("sub/c.PGN"));
        let err = expand(&[dir.path().join("missing.pgn")]).expect_err("missing");
        assert!(err.to_string().contains("missing.pgn"), "{err}");
        let empty = tempfile::tempdir().expect("tempdir");
        assert!(matches!(
            expand(&[empty.path().to_path_buf()]),
            Err(SourceError::EmptyDirectory(_))
        ));
        assert_eq!(expand(&["-".into()]).expect("stdin"), vec![Source::Stdin]);
    }

    /// A FIFO (which would wait for a writer forever) is refused by name, given or found
    /// in a directory; a link back to an ancestor directory does not read its files again.
    #[test]
    fn fifos_are_refused_and_link_loops_read_once() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("a.pgn"), b"").expect("write");
        std::os::unix::fs::symlink(dir.path(), dir.path().join("loop")).expect("symlink");
        let got = expand(&[dir.path().to_path_buf()]).expect("expand");
        assert_eq!(got.len(), 1, "{got:?}");
        let fifo = dir.path().join("b.pgn");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo");
        assert!(made.success());
        let err = expand(std::slice::from_ref(&fifo)).expect_err("a FIFO");
        assert!(
            matches!(&err, SourceError::NotAFile(p) if *p == fifo),
            "{err}"
        );
        assert!(err.to_string().contains("b.pgn"), "{err}");
        let err = expand(&[dir.path().to_path_buf()]).expect_err("a FIFO inside");
        assert!(matches!(err, SourceError::NotAFile(_)), "{err}");
    }
}
