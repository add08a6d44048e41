import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Waits for a child process to end without depending on Foundation noticing it.
///
/// Foundation's `Process.waitUntilExit` learns of a child's exit from SIGCHLD; with many tests
/// spawning processes in parallel that notice was seen to get lost (the child stayed a zombie
/// and the test waited forever). `waitid(…, WNOWAIT)` asks the kernel directly and leaves the
/// child for Foundation to reap.
public enum ChildExit {
    /// (exited normally, exit status or signal number) once the process has ended; nil while it runs.
    public static func poll(_ process: Process) -> (exited: Bool, status: Int32)? {
        if !process.isRunning { return (process.terminationReason == .exit, process.terminationStatus) }
        var info = siginfo_t()
        let pid = process.processIdentifier
        guard waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT | WNOHANG) == 0, info._sifields._sigchld.si_pid == pid
        else {
            return nil  // running, or just reaped by Foundation (isRunning says so on the next poll)
        }
        return (info.si_code == Int32(CLD_EXITED), info._sifields._sigchld.si_status)
    }

    /// Blocks until the process has ended.
    @discardableResult
    public static func wait(_ process: Process) -> (exited: Bool, status: Int32) {
        while true {
            if let ended = poll(process) { return ended }
            usleep(5_000)
        }
    }
}
