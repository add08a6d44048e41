import PushLedgerSupport

/// The figures of a fault run, one structured line per test on stderr
/// (`component=fault-tests msg="fault figures" test=…`), for docs/reliability.md.
enum FaultFigures {
    static let logger = Logger(component: "fault-tests")
}
