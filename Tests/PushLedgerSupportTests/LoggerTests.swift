import PushLedgerSupport
import Synchronization
import Testing

@Suite struct LoggerTests {
    final class Lines: Sendable {
        let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
        var sink: @Sendable (String) -> Void { { line in self.lines.withLock { $0.append(line) } } }
    }

    @Test func linesAreKeyValueWithQuoting() throws {
        let lines = Lines()
        let log = Logger(component: "ingest", sink: lines.sink)
        log.info("request done", ["status": 200, "path": "/v1/sends", "note": "two words \"quoted\"\nnext"])
        let line = try #require(lines.all.first)
        #expect(line.hasPrefix("ts="))
        #expect(
            line.hasSuffix(
                #"level=info component=ingest msg="request done" status=200 path=/v1/sends "#
                    + #"note="two words \"quoted\"\nnext""#
            ))
        #expect(!line.contains("\n"))
    }

    @Test func levelsBelowTheMinimumAreDropped() {
        let lines = Lines()
        let log = Logger(component: "x", minimumLevel: .warning, sink: lines.sink)
        log.debug("a")
        log.info("b")
        log.warning("c")
        log.error("d")
        #expect(lines.all.count == 2)
        #expect(lines.all[0].contains("level=warning"))
        log.named("y").error("e")
        #expect(lines.all.last?.contains("component=y") == true)
    }

    @Test func redactionKeepsOnlyAPrefix() {
        #expect(Logger.redact("pl_t_abcdefghijklmnop") == "pl_t_a…")
        #expect(Logger.redact("abc") == "***")
        #expect(!Logger.redact(String(repeating: "f", count: 64)).contains(String(repeating: "f", count: 7)))
    }
}
