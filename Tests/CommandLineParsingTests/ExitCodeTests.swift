import CommandLineParsing
import PushLedgerSupport
import Testing

/// The statuses users and schedulers see, and which errors get them.
@Suite struct ExitCodeTests {
    @Test func statusesAreThoseDocumented() {
        #expect(ExitCode.allCases.map(\.rawValue) == [0, 1, 2, 64, 65])
    }

    struct Unnamed: Error {}

    @Test func errorsGetTheStatusTheyName() {
        #expect(ExitCode(reporting: OptionError("--burst needs --rate")) == .usage)
        #expect(ExitCode(reporting: Unnamed()) == .failure)
    }
}
