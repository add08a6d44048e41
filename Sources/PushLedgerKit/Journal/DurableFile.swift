import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// POSIX calls the journal's guarantees rest on (write + fsync + rename + directory fsync,
// link for create-once, flock for the single flusher). Foundation's FileManager offers none
// of fsync, link-if-absent or flock, so these few are called directly; every one exists with
// the same meaning in Glibc and Darwin.

enum DurableFile {
    /// Writes `bytes` to `temporary`, fsyncs it, renames it to `final` and fsyncs the
    /// destination directory: afterwards `final` exists with all of `bytes`, or (after a crash
    /// before the rename) not at all.
    static func publish(_ bytes: [UInt8], temporary: String, final: String, directory: String) throws(PushLedgerError) {
        try write(bytes, to: temporary)
        guard rename(temporary, final) == 0 else {
            let failure = PushLedgerError.journal(operation: "rename", path: final, errno: errno)
            unlink(temporary)
            throw failure
        }
        try syncDirectory(directory)
    }

    /// Creates `path` holding `bytes` unless it exists; either way returns what `path` holds.
    /// Two processes racing both get the winner's bytes (link(2) fails when the name exists).
    static func createOnce(
        _ bytes: [UInt8], path: String, temporary: String, directory: String
    ) throws(PushLedgerError) -> [UInt8] {
        try write(bytes, to: temporary)
        defer { unlink(temporary) }
        if link(temporary, path) == 0 {
            try syncDirectory(directory)
            return bytes
        }
        guard errno == EEXIST else { throw .journal(operation: "link", path: path, errno: errno) }
        return try read(path)
    }

    static func write(_ bytes: [UInt8], to path: String) throws(PushLedgerError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .journal(operation: "open", path: path, errno: errno) }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw .journal(operation: "write", path: path, errno: errno) }
            offset += n
        }
        guard fsync(fd) == 0 else { throw .journal(operation: "fsync", path: path, errno: errno) }
    }

    static func read(_ path: String) throws(PushLedgerError) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .journal(operation: "read", path: path, errno: errno)
        }
        return [UInt8](data)
    }

    /// Makes renames and unlinks in `directory` durable.
    static func syncDirectory(_ directory: String) throws(PushLedgerError) {
        let fd = open(directory, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .journal(operation: "open", path: directory, errno: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw .journal(operation: "fsync", path: directory, errno: errno) }
    }

    /// Removes `path`; a file already gone (another flusher's doing) is fine.
    static func remove(_ path: String) throws(PushLedgerError) {
        guard unlink(path) == 0 || errno == ENOENT else {
            throw .journal(operation: "unlink", path: path, errno: errno)
        }
    }
}

/// An exclusive `flock` on one file, released by `unlock`, by closing, or by the kernel when
/// the holder dies (SIGKILL included): a dead flusher never blocks the others.
final class FileLock {
    private var fd: Int32

    /// Takes the lock if it is free now; nil while another holder has it.
    static func tryLock(_ path: String) throws(PushLedgerError) -> FileLock? {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .journal(operation: "open", path: path, errno: errno) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let failure = errno
            close(fd)
            if failure == EWOULDBLOCK || failure == EINTR { return nil }
            throw .journal(operation: "flock", path: path, errno: failure)
        }
        return FileLock(fd: fd)
    }

    private init(fd: Int32) { self.fd = fd }

    func unlock() {
        guard fd >= 0 else { return }
        close(fd)  // closing the only descriptor releases the flock
        fd = -1
    }

    deinit { unlock() }
}
