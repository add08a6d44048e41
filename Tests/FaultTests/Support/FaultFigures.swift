import PushLedgerSupport
import Testing

/// The figures of a fault run, one structured line per test on stderr
/// (`component=fault-tests msg="fault figures" test=…`), for docs/reliability.md.
enum FaultFigures {
    static let logger = Logger(component: "fault-tests")
}

/// The fault tests that load the machine hard while a client of theirs measures: run one at a
/// time (Swift Testing runs suites in parallel), so one test's flood cannot starve another's
/// ordinary client past its bounds.
@Suite(.serialized) enum MachineLoad {}
