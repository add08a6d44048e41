import PushLedgerSupport

/// The figures of a fault run, one structured line per test on stderr
/// (`component=fault-tests msg="fault figures" test=…`), for the README's Reliability section.
enum FaultFigures {
    static let logger = Logger(component: "fault-tests")
}
