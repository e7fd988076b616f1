//! The private directory the API socket lives in, and the checks that keep another local user
//! out of it.
//!
//! Without `XDG_RUNTIME_DIR` the socket lives under `/tmp`, where anyone can create a
//! directory first and listen in it: a client that connected there would hand its token to
//! a stranger and take a forged answer for the human's. So the server creates the socket's
//! directory itself with mode 0700 and refuses one it did not make safe, and every client
//! checks, before it connects, that the directory and the socket belong to the user it runs
//! as, and after, that the process at the other end runs as that user too (`SO_PEERCRED`).
//! Checks use `lstat`: a symlink is refused, never followed. This module decides whether a
//! place is safe; it does not listen, connect or speak HTTP.

use std::fmt;
use std::io;
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// What is wrong with the socket's directory or the socket.
#[derive(Debug)]
pub enum Problem {
    /// It does not exist.
    Missing,
    /// It is a symbolic link.
    Symlink,
    /// The directory is not a directory, or the socket not a socket.
    WrongType,
    /// Another user owns it.
    OwnedBy(u32),
    /// Others than its owner may use it (the mode's group and other bits).
    OpenToOthers(u32),
    /// The process listening on the socket runs as another user.
    ServedBy(u32),
    /// The system refused to tell or to create it.
    Io(io::Error),
}

/// A place that is not safe for the socket, and why.
#[derive(Debug)]
pub struct UnsafePlace {
    /// The directory or socket that failed.
    pub path: PathBuf,
    /// The rule it breaks.
    pub problem: Problem,
}

impl fmt::Display for UnsafePlace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display();
        let me = current_uid();
        match &self.problem {
            Problem::Missing => write!(f, "{path}: does not exist"),
            Problem::Symlink => write!(
                f,
                "{path}: is a symbolic link; the socket's directory must be a real directory"
            ),
            Problem::WrongType => write!(f, "{path}: is not a directory or socket"),
            Problem::OwnedBy(uid) => write!(
                f,
                "{path}: belongs to uid {uid}, not to you (uid {me}); another user may be \
                 impersonating the surface, so it is not used"
            ),
            Problem::OpenToOthers(mode) => write!(
                f,
                "{path}: mode {mode:04o} lets other users in; it must be 0700 (chmod 700 it, \
                 or set CHATSURFACE_SOCKET to a path in a private directory)"
            ),
            Problem::ServedBy(uid) => write!(
                f,
                "{path}: the process listening runs as uid {uid}, not as you (uid {me}); \
                 nothing was sent to it"
            ),
            Problem::Io(error) => write!(f, "{path}: {error}"),
        }
    }
}

impl std::error::Error for UnsafePlace {}

/// The user this process runs as.
pub fn current_uid() -> u32 {
    rustix::process::geteuid().as_raw()
}

fn unsafe_place(path: &Path, problem: Problem) -> UnsafePlace {
    UnsafePlace {
        path: path.to_path_buf(),
        problem,
    }
}

/// `lstat`, with a missing path told apart.
fn lstat(path: &Path) -> Result<std::fs::Metadata, UnsafePlace> {
    std::fs::symlink_metadata(path).map_err(|error| match error.kind() {
        io::ErrorKind::NotFound => unsafe_place(path, Problem::Missing),
        _ => unsafe_place(path, Problem::Io(error)),
    })
}

/// Checks that `dir` is a directory (not a symlink) owned by this user with no permission for
/// anyone else.
pub fn check_dir(dir: &Path) -> Result<(), UnsafePlace> {
    let metadata = lstat(dir)?;
    if metadata.file_type().is_symlink() {
        return Err(unsafe_place(dir, Problem::Symlink));
    }
    if !metadata.is_dir() {
        return Err(unsafe_place(dir, Problem::WrongType));
    }
    if metadata.uid() != current_uid() {
        return Err(unsafe_place(dir, Problem::OwnedBy(metadata.uid())));
    }
    let mode = metadata.mode() & 0o7777;
    if mode & 0o077 != 0 {
        return Err(unsafe_place(dir, Problem::OpenToOthers(mode)));
    }
    Ok(())
}

/// Creates `dir` with mode 0700 if it is absent (its parents as needed, with the usual mode),
/// then checks it as [`check_dir`] does. An existing directory is never loosened nor
/// tightened: one that fails the check is refused.
pub fn ensure_dir(dir: &Path) -> Result<(), UnsafePlace> {
    if let Some(parent) = dir.parent().filter(|parent| !parent.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .map_err(|error| unsafe_place(parent, Problem::Io(error)))?;
    }
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => {
            // The umask may have taken bits away, never added them; set exactly 0700.
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
                .map_err(|error| unsafe_place(dir, Problem::Io(error)))?;
        }
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {}
        Err(error) => return Err(unsafe_place(dir, Problem::Io(error))),
    }
    check_dir(dir)
}

/// The directory a socket path is in.
pub fn socket_dir(socket: &Path) -> &Path {
    match socket.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// What a client checks before it connects: the socket's directory passes [`check_dir`], and
/// the socket is a socket (not a symlink) owned by this user.
pub fn check_socket(socket: &Path) -> Result<(), UnsafePlace> {
    check_dir(socket_dir(socket))?;
    let metadata = lstat(socket)?;
    if metadata.file_type().is_symlink() {
        return Err(unsafe_place(socket, Problem::Symlink));
    }
    if !metadata.file_type().is_socket() {
        return Err(unsafe_place(socket, Problem::WrongType));
    }
    if metadata.uid() != current_uid() {
        return Err(unsafe_place(socket, Problem::OwnedBy(metadata.uid())));
    }
    Ok(())
}

/// What a client checks once connected: the listening process runs as `expected`.
pub fn check_peer(socket: &Path, peer_uid: u32, expected: u32) -> Result<(), UnsafePlace> {
    if peer_uid == expected {
        Ok(())
    } else {
        Err(unsafe_place(socket, Problem::ServedBy(peer_uid)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_directory_made_here_is_private_and_passes() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("run").join("chatsurface");
        ensure_dir(&dir).unwrap();
        let mode = std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
        ensure_dir(&dir).unwrap();
    }

    #[test]
    fn a_directory_open_to_others_is_refused_and_left_as_it_is() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("shared");
        std::fs::create_dir(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        let error = ensure_dir(&dir).unwrap_err();
        assert!(
            matches!(error.problem, Problem::OpenToOthers(0o755)),
            "{error}"
        );
        assert!(error.to_string().contains("shared: mode 0755"), "{error}");
        let mode = std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o755, "an existing directory is not changed");
    }

    #[test]
    fn a_symlink_to_a_private_directory_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let real = root.path().join("real");
        ensure_dir(&real).unwrap();
        let link = root.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        assert!(matches!(
            check_dir(&link).unwrap_err().problem,
            Problem::Symlink
        ));
        let socket = link.join("api.sock");
        assert!(matches!(
            check_socket(&socket).unwrap_err().problem,
            Problem::Symlink
        ));
    }

    #[test]
    fn a_regular_file_posing_as_the_socket_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("run");
        ensure_dir(&dir).unwrap();
        let socket = dir.join("api.sock");
        assert!(matches!(
            check_socket(&socket).unwrap_err().problem,
            Problem::Missing
        ));
        std::fs::write(&socket, "").unwrap();
        assert!(matches!(
            check_socket(&socket).unwrap_err().problem,
            Problem::WrongType
        ));
        std::fs::remove_file(&socket).unwrap();
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        check_socket(&socket).unwrap();
    }

    #[test]
    fn a_peer_of_another_user_is_refused() {
        let socket = Path::new("/run/x/api.sock");
        check_peer(socket, 1000, 1000).unwrap();
        let error = check_peer(socket, 1001, 1000).unwrap_err();
        assert!(error.to_string().contains("runs as uid 1001"), "{error}");
    }
}
